"""The command line: ``autobyteus-like`` (one module per command, all private)."""

from autobyteus_like.cli._main import main
from autobyteus_like.cli._tools import load_tools

__all__ = ["load_tools", "main"]

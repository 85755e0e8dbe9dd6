"""The command line: ``autobyteus-like`` (one module per command, all private)."""

from autobyteus_like.cli._main import main

__all__ = ["main"]

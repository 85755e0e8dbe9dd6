"""The ``execute`` format (seed 000): a JSON array of ``{"name", "args"}`` in ``<execute>``."""

from __future__ import annotations

from autobyteus_like.parsers._marked_block import MarkedBlockParser

__all__ = ["ExecuteParser"]


class ExecuteParser(MarkedBlockParser):
    """``<think>`` blocks are ignored entirely, including anything that looks like a call."""

    format_name = "execute"
    open_marker = "<execute>"
    close_marker = "</execute>"
    ignored_open = "<think>"
    ignored_close = "</think>"
    require_array = True

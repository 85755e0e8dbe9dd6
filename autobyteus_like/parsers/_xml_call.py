"""An open call of the ``xml`` format, and when a stream holds its body back.

A stream holds an open call's body back, after its ``ToolCallStarted``, while the body is short
(``HOLD_BODY``) and holds no ``</tool`` or ``<tool`` (nothing else in a body decides an event),
then reads it at once: a small call streamed in small chunks is read by the same one-expression
shortcut as in a whole text (``simple_body``), not tag by tag across chunks (twice the work and
more). The parser checks held text only where it is new, so holding costs one search a chunk;
the events and the moments they are given out are those of the tag-by-tag reading.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from autobyteus_like.parsers._xml_arguments import ArgumentTree

__all__ = ["CALL_END", "CALL_END_REACH", "HOLD_BODY", "OpenCall"]

HOLD_BODY = 1024
"""The longest call body a stream holds back to read whole (longer ones are read as they come:
holding copies the held text once per chunk)."""
CALL_END = re.compile(r"</?tool(?=[\s>/])")
"""Where an open call may end (or a next one begin): a held body is read from here on."""
CALL_END_REACH = len("</tool>") - 1
"""How far before new text a ``CALL_END`` may start."""


@dataclass(slots=True)
class OpenCall:
    """What is known of the call being read."""

    index: int
    name: str
    id: str | None
    tree: ArgumentTree
    raw: list[str] = field(default_factory=list)
    in_cdata: bool = False
    held_after: str | None = None
    """While the body is held back to be read whole: the tag it follows ("tool" or
    "arguments", as ``simple_body`` takes it)."""

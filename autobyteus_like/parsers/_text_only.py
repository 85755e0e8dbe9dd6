"""The parser of the ``native`` format: all text is prose. Calls come as structured data from
the provider, so nothing written in the text can ever become a call."""

from __future__ import annotations

from autobyteus_like.parsers._base import FormatParser
from autobyteus_like.parsers._parse_events import ParseEvent, TextDelta

__all__ = ["TextOnlyParser"]


class TextOnlyParser(FormatParser):
    """Passes text through."""

    format_name = "native"

    def feed(self, chunk: str) -> list[ParseEvent]:
        return [TextDelta(chunk)]

    def finish(self) -> list[ParseEvent]:
        return []

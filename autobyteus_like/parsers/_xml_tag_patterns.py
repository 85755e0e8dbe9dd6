"""What the ``xml`` parser searches for: the tags that matter outside a call and inside one
(with the shortcuts' patterns folded into one search), the partial tags a stream holds back, and
a tag's attributes. Every tag is looked for within ``MAX_TAG`` characters, so a stream decides a
broken tag exactly as the whole text does."""

from __future__ import annotations

import re

from autobyteus_like.parsers._partial_marker import PartialMarker
from autobyteus_like.parsers._xml_shortcuts import CALL_TAIL, ITEM_RUN
from autobyteus_like.parsers._xml_tag_stretch import SIMPLE_TAGS

__all__ = ["CDATA_HOLD", "INNER_HOLD", "MAX_TAG", "OPEN_HOLD", "RAW_ARG", "RAW_ITEM", "STRUCTURED",
           "TAG_AT", "TAG_END", "TOOL_OPEN", "tag_attributes"]

MAX_TAG = 512
"""A tag's ``>`` or the next ``<`` is looked for this far only, so a stream decides a broken tag
exactly as the whole text does (and never scans far ahead for it)."""
TOOL_OPEN = re.compile(r"<tool(?=[\s>/])")
TAG_END = re.compile(r"[<>]")
_ATTRIBUTE = re.compile(r"""([A-Za-z_][\w.\-]*)\s*=\s*(?:"([^"]*)"|'([^']*)')""")
# The next step inside a structured element: a run of leaf items (group 1), a stretch of simple
# tags (group 2), the call's end (group 3), CDATA, or a structural tag with what follows its name
# up to its '>' when that comes before any '<' (group 6; the tag's length is checked against
# MAX_TAG after the match; None: a broken tag). Every alternative starts with '<', so the
# search skips text at C speed.
_TAG_BODY = rf"(?=[\s/>])(?:([^<>]{{0,{MAX_TAG}}}+)>)?"
STRUCTURED = re.compile(
    rf"<(?:({ITEM_RUN})|({SIMPLE_TAGS})|({CALL_TAIL})|!\[CDATA\["
    rf"|(/?)(tool|arguments|arg|item){_TAG_BODY})"
)
# Inside a raw element only its own kind of tag and CDATA matter; the tag found is then read by
# TAG_AT (same groups as STRUCTURED, the shortcuts' never set).
RAW_ARG = re.compile(r"<!\[CDATA\[|</?arg(?=[\s/>])")
RAW_ITEM = re.compile(r"<!\[CDATA\[|</?item(?=[\s/>])")
TAG_AT = re.compile(rf"<(?:((?!))|((?!))|((?!)))?(/?)(tool|arguments|arg|item){_TAG_BODY}")
OPEN_HOLD = PartialMarker(["<tool "])
INNER_HOLD = PartialMarker(
    ["<![CDATA[", "<arguments>", "</arguments>", "<tool ", "</tool>", "<arg ", "</arg>",
     "<item>", "</item>"]
)
CDATA_HOLD = PartialMarker(["]]>"])


def tag_attributes(tag: str) -> dict[str, str]:
    """A tag's attributes by name (quoted either way; the first of a repeated name is lost)."""
    return {m.group(1): m.group(2) if m.group(2) is not None else m.group(3)
            for m in _ATTRIBUTE.finditer(tag)}

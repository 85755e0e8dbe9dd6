"""The common shapes of XML calls, read by one regular expression each instead of tag by tag.

A whole simple call (``<tool name="n"><arguments>`` then ``<arg name="k">text</arg>`` elements
whose text holds no ``<``) and a run of leaf elements inside an argument (a list's
``<item>text</item>``s, an object's ``<arg name="k">text</arg>``s) are what most calls are made
of. Each shortcut matches only text that the tag-by-tag reading in ``xml_parser`` would read the
same way (the same tags within the same length limits, no markup inside values), so a shortcut
never changes a result: where it does not match, the parser reads tag by tag. Every pattern is
bounded or runs over characters it consumes for good, so none scans a text twice.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from autobyteus_like.parsers.xml_arguments import Leaf, decode_entities

__all__ = ["SimpleCall", "leaf_run", "simple_call"]

_SPACE = r"[ \t\n\r]*+"
# Attribute values are bounded well inside the parser's tag window (512 characters).
_VALUE = r'[^"<>]{0,200}+'
_SIMPLE_ARG = rf'<arg name="{_VALUE}">[^<]*+</arg>'
_SIMPLE_CALL = re.compile(
    rf'<tool name="({_VALUE})"(?: id="({_VALUE})")?>{_SPACE}<arguments>'
    rf"((?:{_SPACE}{_SIMPLE_ARG})*+){_SPACE}</arguments>{_SPACE}</tool>"
)
_ARG_PAIR = re.compile(rf'<arg name="({_VALUE})">([^<]*+)</arg>')
_LEAF = rf'<(?:item>[^<]*+</item>|arg name="{_VALUE}">[^<]*+</arg>)'
_LEAF_RUN = re.compile(rf"{_LEAF}(?:{_SPACE}{_LEAF})*+")
_LEAF_PARTS = re.compile(
    rf'({_SPACE})<(?:(item)>([^<]*+)</item>|arg name="({_VALUE})">([^<]*+)</arg>)'
)


@dataclass(frozen=True, slots=True)
class SimpleCall:
    """A whole call read at once: its attributes as written and its arguments, decoded."""

    name: str
    id: str | None
    arguments: dict[str, str]
    end: int


def simple_call(data: str, start: int) -> SimpleCall | None:
    """The simple call starting at ``data[start]`` (a ``<tool``), or None if it is not one.

    None too when an argument is given twice: the tag-by-tag reading reports that.
    """
    match = _SIMPLE_CALL.match(data, start)
    if match is None:
        return None
    pairs = _ARG_PAIR.findall(match.group(3))
    arguments = {name: decode_entities(text) for name, text in pairs}
    if len(arguments) != len(pairs):
        return None
    return SimpleCall(match.group(1), match.group(2), arguments, match.end())


def leaf_run(data: str, start: int) -> tuple[list[Leaf], int] | None:
    """The leaf elements from ``data[start]`` on, with only whitespace between them, and where
    the run ends; None if no leaf element starts there."""
    match = _LEAF_RUN.match(data, start)
    if match is None:
        return None
    end = match.end()
    return _LEAF_PARTS.findall(data, start, end), end

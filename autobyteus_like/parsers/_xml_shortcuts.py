"""The common shapes of XML calls, read by a regular expression each instead of tag by tag.

Here: a call's head (``<tool name="n"><arguments>``) and tail (``</arguments></tool>``), a whole
simple call (its head, then ``<arg name="k">`` elements whose text holds no ``<``) and a run of a
list's leaf ``<item>text</item>``s (one ``findall``); stretches of other simple tags are
``xml_tag_stretch``'s. Each matches only text that the tag-by-tag reading in ``xml_parser`` reads
the same way (the same tags within the same length limits, no markup inside values) and applies
it with the same effect on the argument tree, so a shortcut never changes a result: where none
matches, the parser reads tag by tag. Every pattern is bounded or runs over characters it
consumes for good, so none scans a text twice."""

from __future__ import annotations

import re

from autobyteus_like.parsers._limits import MAX_NESTING_DEPTH
from autobyteus_like.parsers._xml_arguments import ArgumentTree, decode_entities

__all__ = ["ARG_PAIR", "CALL_TAIL", "ITEM_RUN", "ITEM_TEXT", "LEAF_ITEM", "SPACE", "VALUE",
           "apply_item_run", "call_head", "simple_body"]

SPACE = r"[ \t\n\r]*+"
"""Whitespace between elements (the four characters XML allows there)."""
# Attribute values are bounded well inside the parser's tag window (512 characters).
VALUE = r'[^"<>]{0,200}+'
_SIMPLE_ARG = rf'<arg name="{VALUE}">[^<]*+</arg>'
_CALL_HEAD = re.compile(rf'<tool name="({VALUE})"(?: id="({VALUE})")?>({SPACE}<arguments>)?')
_SIMPLE_ARGS = rf"((?:{SPACE}{_SIMPLE_ARG})*+){SPACE}</arguments>{SPACE}</tool>"
_SIMPLE_BODY = {"arguments": re.compile(_SIMPLE_ARGS),
                "tool": re.compile(rf"{SPACE}<arguments>{_SIMPLE_ARGS}")}
ARG_PAIR = re.compile(rf'<arg name="({VALUE})">([^<]*+)</arg>')
"""A leaf ``<arg>``: its name and text."""
LEAF_ITEM = r"<item>[^<]*+</item>"
"""An ``<item>`` whose text holds no markup."""
# The shortcuts' patterns go into the parser's search after a '<' (so that the search skips text
# at C speed to the next '<'): each is written without its first '<'.
ITEM_RUN = rf"item>[^<]*+</item>(?:{SPACE}{LEAF_ITEM})*+"
"""After a ``<``: leaf items with only whitespace between them."""
ITEM_TEXT = re.compile(r"<item>([^<]*+)</item>")
"""A leaf ``<item>``: its text."""


CALL_TAIL = rf"/arguments>{SPACE}</tool>"
"""After a ``<``: the end of a call's arguments and of the call."""


def call_head(data: str, start: int) -> tuple[str, str | None, int, str] | None:
    """``<tool name="n" [id="i"]>``, and ``<arguments>`` if it follows, at ``data[start]``: the
    name and id attributes as written, where the head ends and the tag it ends with ("tool" or
    "arguments", as ``simple_body`` takes it), or None if the call does not start so."""
    match = _CALL_HEAD.match(data, start)
    if match is None:
        return None
    return (match.group(1), match.group(2), match.end(),
            "tool" if match.group(3) is None else "arguments")


def simple_body(data: str, start: int, after: str = "arguments"
                ) -> tuple[dict[str, str], int] | None:
    """The arguments (decoded) of a call whose head ends at ``start`` (with its ``<arguments>``
    tag, or ``after`` its ``<tool>`` tag), and where the call ends, when it holds only leaf
    ``<arg>``s; None otherwise, and when an argument is given twice (the tag-by-tag reading
    reports that)."""
    match = _SIMPLE_BODY[after].match(data, start)
    if match is None:
        return None
    pairs = ARG_PAIR.findall(match.group(1))
    arguments = {name: decode_entities(text) for name, text in pairs}
    if len(arguments) != len(pairs):
        return None
    return arguments, match.end()


def apply_item_run(tree: ArgumentTree, data: str, start: int, end: int) -> None:
    """Apply the run ``ITEM_RUN`` matched at ``data[start:end]`` to ``tree`` inside a structured
    element, exactly as reading its tags one by one would."""
    texts = ITEM_TEXT.findall(data, start, end)
    # 13 characters of tags per item; any more is whitespace between items, text of the list.
    spaces = ITEM_TEXT.sub("", data[start:end]) if end - start > 13 * len(texts) + sum(
        map(len, texts)) else ""
    if len(tree.frames) > MAX_NESTING_DEPTH:  # too deep: the general steps report it
        for space, text in zip(_SPACES_BEFORE.findall(data, start, end), texts, strict=True):
            _text(tree, space)
            tree.open_item()
            _text(tree, text)
            tree.close()
        return
    values = texts if data.find("&", start, end) < 0 else [decode_entities(t) for t in texts]
    tree.add_items(values, spaces)


_SPACES_BEFORE = re.compile(rf"({SPACE})<item>")


def _text(tree: ArgumentTree, text: str) -> None:
    top = tree.frames[-1]
    if text and top.kind != "tool":
        top.text.append(text)

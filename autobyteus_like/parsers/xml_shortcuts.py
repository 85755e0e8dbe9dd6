"""The common shapes of XML calls, read by a regular expression each instead of tag by tag.

Three shortcuts: a whole simple call (``<tool name="n"><arguments>`` then ``<arg name="k">``
elements whose text holds no ``<``), a run of a list's leaf ``<item>text</item>``s (read by one
``findall``), and a stretch of simple ``<arg name="k">``, ``<item>`` and closing tags (one
``findall``, then one Python step per tag; a leaf ``<arg>`` is one step, with no frame). Each
matches only text that the tag-by-tag reading in ``xml_parser`` reads the same way (the same tags
within the same length limits, no markup inside values) and applies it with the same effect on
the argument tree, so a shortcut never changes a result: where none matches, the parser reads tag
by tag. Every pattern is bounded or runs over characters it consumes for good, so none scans a text
twice.
"""

from __future__ import annotations

import re

from autobyteus_like.parsers.limits import MAX_NESTING_DEPTH
from autobyteus_like.parsers.xml_arguments import ArgumentTree, decode_entities

__all__ = ["ITEM_RUN", "SIMPLE_TAGS", "SimpleCall", "apply_item_run", "apply_simple_tags",
           "simple_call"]

_SPACE = r"[ \t\n\r]*+"
# Attribute values are bounded well inside the parser's tag window (512 characters).
_VALUE = r'[^"<>]{0,200}+'
_SIMPLE_ARG = rf'<arg name="{_VALUE}">[^<]*+</arg>'
_SIMPLE_CALL = re.compile(
    rf'<tool name="({_VALUE})"(?: id="({_VALUE})")?>{_SPACE}<arguments>'
    rf"((?:{_SPACE}{_SIMPLE_ARG})*+){_SPACE}</arguments>{_SPACE}</tool>"
)
_ARG_PAIR = re.compile(rf'<arg name="({_VALUE})">([^<]*+)</arg>')
_LEAF_ITEM = r"<item>[^<]*+</item>"
# The shortcuts' patterns go into the parser's search after a '<' (so that the search skips text
# at C speed to the next '<'): each is written without its first '<'.
ITEM_RUN = rf"item>[^<]*+</item>(?:{_SPACE}{_LEAF_ITEM})*+"
"""After a ``<``: leaf items with only whitespace between them."""
_ITEM_TEXT = re.compile(r"<item>([^<]*+)</item>")
_SIMPLE_TAG = rf'(?:item|/item|/arg|arg name="{_VALUE}")>'
SIMPLE_TAGS = rf"{_SIMPLE_TAG}[^<]*+(?:(?!{_LEAF_ITEM})<{_SIMPLE_TAG}[^<]*+)*+"
"""After a ``<`` (not one of a leaf item: ``ITEM_RUN`` goes first): a stretch of simple
``<item>``, ``<arg name="...">`` and closing tags, each with the text after it up to the next
``<``, stopping before a leaf item."""
# One tag of a stretch with the text after it; a leaf <arg> is one token (groups 1 and 2).
_TOKEN = re.compile(
    rf'<(?:arg name="({_VALUE})">([^<]*+)</arg>|(/?)(item|arg)(?: name="({_VALUE})")?>)([^<]*+)'
)


SimpleCall = tuple[str, str | None, dict[str, str], int]
"""A whole call read at once: its name and id attributes as written, its arguments (decoded) and
where it ends."""


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
    return match.group(1), match.group(2), arguments, match.end()


def apply_item_run(tree: ArgumentTree, data: str, start: int, end: int) -> None:
    """Apply the run ``ITEM_RUN`` matched at ``data[start:end]`` to ``tree`` inside a structured
    element, exactly as reading its tags one by one would."""
    texts = _ITEM_TEXT.findall(data, start, end)
    # 13 characters of tags per item; any more is whitespace between items, text of the list.
    spaces = _ITEM_TEXT.sub("", data[start:end]) if end - start > 13 * len(texts) + sum(
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


_SPACES_BEFORE = re.compile(rf"({_SPACE})<item>")


def _text(tree: ArgumentTree, text: str) -> None:
    top = tree.frames[-1]
    if text and top.kind != "tool":
        top.text.append(text)


def apply_simple_tags(tree: ArgumentTree, data: str, start: int, end: int) -> int:
    """Apply the stretch ``SIMPLE_TAGS`` matched at ``data[start:end]`` to ``tree`` inside a
    structured element, exactly as reading its tags one by one would; return where reading stopped:
    ``end``, or just after an element that opened raw (a string argument: what follows in it is
    text, for the raw scan to read). A leaf ``<arg>`` is added without a frame of its own.
    """
    frames = tree.frames
    for count, (leaf_name, leaf_text, slash, element, name, text) in enumerate(
            _TOKEN.findall(data, start, end), 1):
        if not element:  # a leaf <arg name="...">text</arg>
            if len(frames) <= MAX_NESTING_DEPTH:
                tree.add_leaf(False, leaf_name, leaf_text)
            else:  # too deep: the general steps report it
                tree.open_arg(leaf_name)
                if leaf_text:
                    frames[-1].text.append(leaf_text)
                tree.close()
        elif slash:
            if element == "arg" and frames[-1].kind == "item":
                tree.close()  # a forgotten </item>
            if frames[-1].kind == element:
                tree.close()  # (anything else is a stray closing tag)
        else:
            if element == "arg":
                tree.open_arg(name)
            else:
                tree.open_item()
            if frames[-1].raw:
                if text:
                    frames[-1].text.append(text)
                return _end_of_token(data, start, end, count)
        if text and frames[-1].kind != "tool":  # text between a tool's arguments is ignored
            frames[-1].text.append(text)
    return end


def _end_of_token(data: str, start: int, end: int, count: int) -> int:
    """Where the ``count``-th token of the stretch ends, with its text (rare: once per element
    that opens raw, so the positions findall leaves out are found again only then)."""
    stop = start
    for _, match in zip(range(count), _TOKEN.finditer(data, start, end), strict=False):
        stop = match.end()
    return stop

"""The common shapes of XML calls, read by a regular expression each instead of tag by tag.

The shortcuts: a call's head (``<tool name="n"><arguments>``) and tail (``</arguments></tool>``);
a whole simple call (its head, then ``<arg name="k">`` elements whose text holds no ``<``); a run
of a list's leaf ``<item>text</item>``s (one ``findall``); and a stretch of simple
``<arg name="k">``, ``<item>`` and closing tags (one ``findall``, then one Python step per tag,
a leaf ``<arg>`` and an object made of leaf ``<arg>``s one step each, with no frames). Each
matches only text that the tag-by-tag reading in ``xml_parser`` reads the same way (the same tags
within the same length limits, no markup inside values) and applies it with the same effect on
the argument tree, so a shortcut never changes a result: where none matches, the parser reads tag
by tag. Every pattern is bounded or runs over characters it consumes for good, so none scans a
text twice."""

from __future__ import annotations

import re

from autobyteus_like.parsers.limits import MAX_NESTING_DEPTH
from autobyteus_like.parsers.xml_arguments import ArgumentTree, decode_entities

__all__ = ["CALL_TAIL", "ITEM_RUN", "SIMPLE_TAGS", "apply_item_run", "apply_simple_tags",
           "call_head", "simple_body"]

_SPACE = r"[ \t\n\r]*+"
# Attribute values are bounded well inside the parser's tag window (512 characters).
_VALUE = r'[^"<>]{0,200}+'
_SIMPLE_ARG = rf'<arg name="{_VALUE}">[^<]*+</arg>'
_CALL_HEAD = re.compile(rf'<tool name="({_VALUE})"(?: id="({_VALUE})")?>{_SPACE}<arguments>')
_SIMPLE_BODY = re.compile(
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


CALL_TAIL = rf"/arguments>{_SPACE}</tool>"
"""After a ``<``: the end of a call's arguments and of the call."""


def call_head(data: str, start: int) -> tuple[str, str | None, int] | None:
    """``<tool name="n" [id="i"]>`` and ``<arguments>`` at ``data[start]``: the name and id
    attributes as written and where the head ends, or None if the call does not start so."""
    match = _CALL_HEAD.match(data, start)
    return None if match is None else (match.group(1), match.group(2), match.end())


def simple_body(data: str, start: int) -> tuple[dict[str, str], int] | None:
    """The arguments (decoded) of a call whose head ends at ``start``, and where the call ends,
    when it holds only leaf ``<arg>``s; None otherwise, and when an argument is given twice (the
    tag-by-tag reading reports that)."""
    match = _SIMPLE_BODY.match(data, start)
    if match is None:
        return None
    pairs = _ARG_PAIR.findall(match.group(1))
    arguments = {name: decode_entities(text) for name, text in pairs}
    if len(arguments) != len(pairs):
        return None
    return arguments, match.end()


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
    text, for the raw scan to read). A leaf ``<arg>`` is one step with no frame, and so is an
    object made of leaf ``<arg>``s (an element holding only them, whitespace around them).
    """
    frames = tree.frames
    tokens = _TOKEN.findall(data, start, end)
    count = len(tokens)
    k = 0
    while k < count:
        leaf_name, leaf_text, slash, element, name, text = tokens[k]
        k += 1
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
            last = _object_end(tokens, k, element, text)
            if last and tree.add_object(element == "item", name,
                                        [(t[0], t[1]) for t in tokens[k:last]]):
                text = tokens[last][5]  # the text after the object's closing tag
                k = last + 1
            else:
                if element == "arg":
                    tree.open_arg(name)
                else:
                    tree.open_item()
                if frames[-1].raw:
                    if text:
                        frames[-1].text.append(text)
                    return _end_of_token(data, start, end, k)
        if text and frames[-1].kind != "tool":  # text between a tool's arguments is ignored
            frames[-1].text.append(text)
    return end


def _object_end(tokens: list[tuple[str, ...]], first: int, element: str, text: str) -> int:
    """The index of the closing tag of an element whose opening tag precedes ``tokens[first]``,
    when the element holds only leaf ``<arg>``s with whitespace around them; else 0."""
    if text and not text.isspace():
        return 0
    k, count = first, len(tokens)
    while k < count and not tokens[k][3]:  # leaf <arg>s
        after = tokens[k][5]
        if after and not after.isspace():
            return 0
        k += 1
    if k in (first, count) or tokens[k][2] != "/" or tokens[k][3] != element:
        return 0
    return k


def _end_of_token(data: str, start: int, end: int, count: int) -> int:
    """Where the ``count``-th token of the stretch ends, with its text (rare: once per element
    that opens raw, so the positions findall leaves out are found again only then)."""
    stop = start
    for _, match in zip(range(count), _TOKEN.finditer(data, start, end), strict=False):
        stop = match.end()
    return stop

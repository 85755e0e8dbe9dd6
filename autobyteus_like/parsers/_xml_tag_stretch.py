"""Stretches of simple XML tags inside a call, read by one ``findall`` and a Python step per tag.

A stretch is a run of ``<arg name="k">``, ``<item>``, ``</arg>`` and ``</item>`` tags, each with
the text after it up to the next ``<``. Within it, one token (one step, no frame) is each leaf
``<arg>`` (text without markup) and each element that holds only leaf ``<arg>``s (an object) or
only leaf ``<item>``s (a list), whitespace around them: what argument-dense calls are made of.
Every other tag is one step of the general argument tree. The effect on the tree is exactly that
of reading the tags one by one (the tests compare it with the tag-by-tag parser); where a
shortcut's condition fails (an element that would read raw, nesting at the limit) the general
steps read that token. Every pattern is possessive and bounded by the next ``<`` or by a run of
leaves it consumes, so a stretch is scanned a bounded number of times.
"""

from __future__ import annotations

import re

from autobyteus_like.parsers._limits import MAX_NESTING_DEPTH
from autobyteus_like.parsers._xml_arguments import ArgumentTree
from autobyteus_like.parsers._xml_shortcuts import ARG_PAIR, ITEM_TEXT, LEAF_ITEM, SPACE, VALUE

__all__ = ["SIMPLE_TAGS", "apply_simple_tags"]

_LEAF_ARG = rf'<arg name="{VALUE}">[^<]*+</arg>'
_OBJECT = rf"{SPACE}(?:{_LEAF_ARG}{SPACE})++"
_LIST = rf"{SPACE}(?:{LEAF_ITEM}{SPACE})++"
# After a '<': a whole object or list element, or one simple tag; then the text up to the next '<'.
_UNIT = (rf'(?:item>(?:{_OBJECT}|{_LIST})</item>|arg name="{VALUE}">(?:{_OBJECT}|{_LIST})</arg>'
         rf'|(?:item|/item|/arg|arg name="{VALUE}")>)[^<]*+')
SIMPLE_TAGS = rf"{_UNIT}(?:(?!{LEAF_ITEM})<{_UNIT})*+"
"""After a ``<`` (not one of a leaf item: a search puts ``ITEM_RUN`` first): a stretch, stopping
before a leaf item outside an object or list element (a run of those is ``ITEM_RUN``'s)."""
_TOKEN = re.compile(
    rf"<(?:item>(?:({_OBJECT})|({_LIST}))</item>"  # 1, 2: an object or list <item>
    rf'|arg name="({VALUE})">(?:({_OBJECT})|({_LIST}))</arg>'  # 3, 4, 5: an object or list <arg>
    rf'|arg name="({VALUE})">([^<]*+)</arg>'  # 6, 7: a leaf <arg>
    rf'|(/?)(item|arg)(?: name="({VALUE})")?>)'  # 8, 9, 10: any other tag
    rf"([^<]*+)"  # 11: the text after it
)
_PLAIN_TOKEN = re.compile(rf'<(/?)(item|arg)(?: name="({VALUE})")?>([^<]*+)')


def apply_simple_tags(tree: ArgumentTree, data: str, start: int, end: int) -> int:
    """Apply the stretch ``SIMPLE_TAGS`` matched at ``data[start:end]`` to ``tree`` inside a
    structured element; return where reading stopped: ``end``, or just after an element that
    opened raw (a string argument: what follows in it is text, for the raw scan to read)."""
    frames = tree.frames
    for index, token in enumerate(_TOKEN.findall(data, start, end)):
        (item_object, item_list, element_name, arg_object, arg_list, leaf_name, leaf_text,
         slash, element, name, text) = token
        if element:
            if slash:
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
                    return _token_span(data, start, end, index)[1]
        elif item_object or item_list or arg_object or arg_list:
            item = bool(item_object or item_list)
            if item_object or arg_object:
                added = tree.add_object(item, element_name,
                                        ARG_PAIR.findall(item_object or arg_object))
            else:
                added = tree.add_list(item, element_name,
                                      ITEM_TEXT.findall(item_list or arg_list))
            if not added:  # raw, or at the nesting limit: the general steps read it
                token_start, token_end = _token_span(data, start, end, index)
                stop = _apply_plainly(tree, data, token_start, token_end)
                if stop < token_end:
                    return stop
                continue  # (its text is read too)
        elif len(frames) <= MAX_NESTING_DEPTH:  # a leaf <arg name="...">text</arg>
            tree.add_leaf(False, leaf_name, leaf_text)
        else:  # too deep: the general steps report it
            tree.open_arg(leaf_name)
            if leaf_text:
                frames[-1].text.append(leaf_text)
            tree.close()
        if text and frames[-1].kind != "tool":  # text between a tool's arguments is ignored
            frames[-1].text.append(text)
    return end


def _apply_plainly(tree: ArgumentTree, data: str, start: int, end: int) -> int:
    """The general steps for the simple tags of ``data[start:end]``, each element with a frame;
    return ``end``, or just after an element that opened raw (its tag and text)."""
    frames = tree.frames
    for match in _PLAIN_TOKEN.finditer(data, start, end):
        slash, element, name, text = match.groups()
        if slash:
            if element == "arg" and frames[-1].kind == "item":
                tree.close()
            if frames[-1].kind == element:
                tree.close()
        else:
            if element == "arg":
                tree.open_arg(name)
            else:
                tree.open_item()
            if frames[-1].raw:
                if text:
                    frames[-1].text.append(text)
                return match.end()
        if text and frames[-1].kind != "tool":
            frames[-1].text.append(text)
    return end


def _token_span(data: str, start: int, end: int, index: int) -> tuple[int, int]:
    """Where the token at ``index`` of the stretch starts and ends (rare: only where a shortcut
    does not apply, so the positions findall leaves out are found again only then)."""
    for position, match in enumerate(_TOKEN.finditer(data, start, end)):
        if position == index:
            return match.span()
    raise AssertionError("the stretch has fewer tokens than findall gave")  # pragma: no cover

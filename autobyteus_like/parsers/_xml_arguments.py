"""The argument tree of one XML call, built element by element as the parser meets tags.

Only ``<arg>`` and ``<item>`` make structure. An argument the tool declares as a string is read
raw: nested ``<arg>`` tags inside it are balanced text, not children, so markup in a file's content
is never mistaken for structure. Without a schema every argument is structured.

Elements nested deeper than ``MAX_NESTING_DEPTH`` are a problem of the call (its value is never
built into something only recursion could walk); the frames are still kept, so the rest of the
call is read as usual and the calls around it are unaffected.

A leaf element (``<item>text</item>``, ``<arg name="n">text</arg>`` with no markup in the text) is
added in one step (``add_leaf``) with exactly the effect of opening and closing it: that is where
argument-dense calls spend their elements.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from autobyteus_like.parsers._limits import MAX_NESTING_DEPTH
from autobyteus_like.tools._json_schema import schema_type, unwrap_optional

__all__ = ["ArgumentTree", "Frame", "decode_entities"]

_ENTITY = re.compile(r"&(?:#[0-9]{1,7}|#x[0-9a-fA-F]{1,6}|lt|gt|amp|quot|apos);")
_NAMED = {"lt": "<", "gt": ">", "amp": "&", "quot": '"', "apos": "'"}


def _entity(match: re.Match[str]) -> str:
    entity = match.group(0)
    body = entity[1:-1]
    if not body.startswith("#"):
        return _NAMED[body]
    code = int(body[2:], 16) if body.startswith("#x") else int(body[1:])
    return chr(code) if code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF else entity


def decode_entities(text: str) -> str:
    """XML's five named entities and numeric references; anything else stays as written."""
    return _ENTITY.sub(_entity, text) if "&" in text else text


@dataclass(slots=True)
class Frame:
    """One open element: the tool itself, an ``<arg>`` or an ``<item>``."""

    kind: str  # "tool" | "arg" | "item"
    name: str | None
    schema: dict[str, Any] | None
    raw: bool = False
    depth: int = 0
    text: list[str] = field(default_factory=list)
    verbatim: set[int] | None = None
    """Positions in ``text`` of CDATA content, which is not entity-decoded (None: no CDATA)."""
    children: dict[str, Any] | None = None
    items: list[Any] | None = None
    item_spec: tuple[dict[str, Any] | None, bool] | None = None
    """The schema of this array's items and whether they are raw, once known (items share it)."""

    def add_cdata(self, content: str) -> None:
        """Append CDATA content, kept verbatim."""
        if self.verbatim is None:
            self.verbatim = set()
        self.verbatim.add(len(self.text))
        self.text.append(content)

    def value_text(self) -> str:
        """The element's text: entities decoded outside CDATA, parts joined first so that an
        entity split across stream chunks decodes the same as a whole one."""
        verbatim = self.verbatim
        if not verbatim:
            text = self.text
            return "" if not text else decode_entities(text[0] if len(text) == 1 else "".join(text))
        out: list[str] = []
        run: list[str] = []
        for position, part in enumerate(self.text):
            if position in verbatim:
                out.append(decode_entities("".join(run)))
                out.append(part)
                run = []
            else:
                run.append(part)
        out.append(decode_entities("".join(run)))
        return "".join(out)

    def child_schema(self, name: str | None) -> dict[str, Any] | None:
        """The declared schema of a child ``<arg name>``, if known (shared: read only)."""
        if self.schema is None or name is None:
            return None
        node = unwrap_optional(self.schema)
        properties = node.get("properties")
        if isinstance(properties, dict) and name in properties:
            found: dict[str, Any] = properties[name]
            return found
        extra = node.get("additionalProperties")
        return extra if isinstance(extra, dict) else None

    def item_schema(self) -> dict[str, Any] | None:
        """The declared schema of this array's items, if known (shared: read only)."""
        if self.schema is None:
            return None
        items = unwrap_optional(self.schema).get("items")
        return items if isinstance(items, dict) else None


def _is_string(schema: dict[str, Any] | None) -> bool:
    return schema is not None and schema_type(schema) == "string"


class ArgumentTree:
    """The open elements of one call, innermost last, and the problems met so far."""

    __slots__ = ("frames", "problems")

    def __init__(self, schema: dict[str, Any] | None) -> None:
        self.frames = [Frame("tool", None, schema, children={})]
        self.problems: list[str] = []

    @property
    def top(self) -> Frame:
        """The innermost open element."""
        return self.frames[-1]

    @property
    def arguments(self) -> dict[str, Any]:
        """The arguments read so far (complete once every element is closed)."""
        return self.frames[0].children or {}

    def open_arg(self, name: str | None) -> None:
        """An ``<arg name>`` opened inside the innermost element."""
        if name is None:
            self.problems.append("an <arg> has no name attribute")
        schema = self.frames[-1].child_schema(name)
        self._push(Frame("arg", name, schema, _is_string(schema)))

    def open_item(self) -> None:
        """An ``<item>`` opened inside the innermost element."""
        top = self.frames[-1]
        if top.kind == "tool":
            self.problems.append("an <item> must be inside an <arg>")
        spec = top.item_spec
        if spec is None:
            schema = top.item_schema()
            spec = top.item_spec = (schema, _is_string(schema))
        self._push(Frame("item", None, spec[0], spec[1]))

    def _push(self, frame: Frame) -> None:
        frames = self.frames
        if len(frames) == MAX_NESTING_DEPTH + 1:  # the tool's own frame is not nesting
            problem = f"<arg>/<item> elements are nested deeper than {MAX_NESTING_DEPTH} levels"
            if problem not in self.problems:
                self.problems.append(problem)
        frames.append(frame)

    def close(self) -> None:
        """Close the innermost element and attach its value to its parent."""
        frames = self.frames
        frame = frames.pop()
        parent = frames[-1]
        value = self._value(frame)
        if frame.kind == "item":
            if parent.items is None:
                parent.items = [value]
            else:
                parent.items.append(value)
            return
        if parent.children is None:
            parent.children = {}
        name = frame.name
        if name is None:
            return
        if name in parent.children:
            self.problems.append(f"argument {name!r} is given twice")
        parent.children[name] = value

    def add_leaf(self, item: bool, name: str, text: str) -> None:
        """Open and close one leaf element (``<item>text</item>`` or ``<arg name>text</arg>``,
        ``text`` holding no ``<``) inside the innermost element, with no frame of its own.

        The caller guarantees that the innermost element is structured (not raw) and that one more
        level stays within ``MAX_NESTING_DEPTH``; a leaf's value is its text whether its own
        schema makes it raw or not, since the text holds no markup.
        """
        top = self.frames[-1]
        value = decode_entities(text)
        if item:
            if top.kind == "tool":
                self.problems.append("an <item> must be inside an <arg>")
            if top.items is None:
                top.items = [value]
            else:
                top.items.append(value)
            return
        if top.children is None:
            top.children = {name: value}
            return
        if name in top.children:
            self.problems.append(f"argument {name!r} is given twice")
        top.children[name] = value

    def add_object(self, item: bool, name: str, members: list[tuple[str, str]]) -> bool:
        """Open, fill and close one element holding only leaf ``<arg>``s (``members``: their
        names and texts; whitespace around them) inside the innermost element, with no frames.

        Does nothing and returns False when the element would be raw (its content then is text,
        not members) or its members too deep: the general steps read it then. The caller
        guarantees that the innermost element is structured.
        """
        parent = self._parent_of_compound(item, name)
        if parent is None:
            return False
        value: dict[str, Any] = {}
        for member, text in members:
            if member in value:
                self.problems.append(f"argument {member!r} is given twice")
            value[member] = decode_entities(text)
        self._attach(parent, item, name, value)
        return True

    def add_list(self, item: bool, name: str, texts: list[str]) -> bool:
        """``add_object`` for an element holding only leaf ``<item>``s (``texts``)."""
        parent = self._parent_of_compound(item, name)
        if parent is None:
            return False
        self._attach(parent, item, name, [decode_entities(text) for text in texts])
        return True

    def _parent_of_compound(self, item: bool, name: str) -> Frame | None:
        """The innermost element, where an element of leaves may be added without frames (its
        opening's problem recorded); None if it would be raw or its leaves too deep."""
        frames = self.frames
        if len(frames) >= MAX_NESTING_DEPTH:
            return None
        top = frames[-1]
        if item:
            spec = top.item_spec
            if spec is None:
                schema = top.item_schema()
                spec = top.item_spec = (schema, _is_string(schema))
            if spec[1]:
                return None
            if top.kind == "tool":
                self.problems.append("an <item> must be inside an <arg>")
        elif _is_string(top.child_schema(name)):
            return None
        return top

    def _attach(self, parent: Frame, item: bool, name: str, value: Any) -> None:
        """A closed element's value into its parent, as ``close`` attaches it."""
        if item:
            if parent.items is None:
                parent.items = [value]
            else:
                parent.items.append(value)
            return
        if parent.children is None:
            parent.children = {name: value}
            return
        if name in parent.children:
            self.problems.append(f"argument {name!r} is given twice")
        parent.children[name] = value

    def add_items(self, values: list[str], spaces: str) -> None:
        """``add_leaf`` for each of a run of leaf items, ``spaces`` being the whitespace between
        them (text of the innermost element). The same guarantees are the caller's."""
        top = self.frames[-1]
        if top.kind == "tool":
            self.problems.extend(["an <item> must be inside an <arg>"] * len(values))
        elif spaces:
            top.text.append(spaces)
        if top.items is None:
            top.items = values
        else:
            top.items.extend(values)

    def close_to_tool(self) -> None:
        """Close every open element (the call ended while some were open)."""
        while len(self.frames) > 1:
            self.close()

    def _value(self, frame: Frame) -> Any:
        text = frame.value_text()
        children, items = frame.children, frame.items
        if children is None and items is None:
            return text
        label = f"argument {frame.name!r}" if frame.kind == "arg" else "an <item>"
        if text.strip():
            self.problems.append(f"{label} mixes text with <arg>/<item> elements")
        if children is not None and items is not None:
            self.problems.append(f"{label} mixes <arg> and <item> elements")
        return children if children is not None else items

"""ORACLE for tests: the XML argument tree as of commit 5b61efb (before issue 16), unchanged.

The argument tree of one XML call, built element by element as the parser meets tags.

Only ``<arg>`` and ``<item>`` make structure. An argument the tool declares as a string is read
raw: nested ``<arg>`` tags inside it are balanced text, not children, so markup in a file's content
is never mistaken for structure. Without a schema every argument is structured.

Elements nested deeper than ``MAX_NESTING_DEPTH`` are a problem of the call (its value is never
built into something only recursion could walk); the frames are still kept, so the rest of the
call is read as usual and the calls around it are unaffected.
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


@dataclass
class Frame:
    """One open element: the tool itself, an ``<arg>`` or an ``<item>``."""

    kind: str  # "tool" | "arg" | "item"
    name: str | None
    schema: dict[str, Any] | None
    raw: bool = False
    depth: int = 0
    text: list[str] = field(default_factory=list)
    verbatim: set[int] = field(default_factory=set)
    """Positions in ``text`` of CDATA content, which is not entity-decoded."""
    children: dict[str, Any] | None = None
    items: list[Any] | None = None

    def add_cdata(self, content: str) -> None:
        """Append CDATA content, kept verbatim."""
        self.verbatim.add(len(self.text))
        self.text.append(content)

    def value_text(self) -> str:
        """The element's text: entities decoded outside CDATA, parts joined first so that an
        entity split across stream chunks decodes the same as a whole one."""
        if not self.verbatim:
            return decode_entities("".join(self.text))
        out: list[str] = []
        run: list[str] = []
        for position, part in enumerate(self.text):
            if position in self.verbatim:
                out.append(decode_entities("".join(run)))
                out.append(part)
                run = []
            else:
                run.append(part)
        out.append(decode_entities("".join(run)))
        return "".join(out)

    def child_schema(self, name: str | None) -> dict[str, Any] | None:
        """The declared schema of a child ``<arg name>``, if known."""
        if self.schema is None or name is None:
            return None
        node = unwrap_optional(self.schema)
        properties = node.get("properties")
        if isinstance(properties, dict) and name in properties:
            return dict(properties[name])
        extra = node.get("additionalProperties")
        return dict(extra) if isinstance(extra, dict) else None

    def item_schema(self) -> dict[str, Any] | None:
        """The declared schema of this array's items, if known."""
        if self.schema is None:
            return None
        items = unwrap_optional(self.schema).get("items")
        return dict(items) if isinstance(items, dict) else None


def _is_string(schema: dict[str, Any] | None) -> bool:
    return schema is not None and schema_type(schema) == "string"


class ArgumentTree:
    """The open elements of one call, innermost last, and the problems met so far."""

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
        schema = self.top.child_schema(name)
        self._push(Frame("arg", name, schema, raw=_is_string(schema)))

    def open_item(self) -> None:
        """An ``<item>`` opened inside the innermost element."""
        if self.top.kind == "tool":
            self.problems.append("an <item> must be inside an <arg>")
        schema = self.top.item_schema()
        self._push(Frame("item", None, schema, raw=_is_string(schema)))

    def _push(self, frame: Frame) -> None:
        if len(self.frames) == MAX_NESTING_DEPTH + 1:  # the tool's own frame is not nesting
            problem = f"<arg>/<item> elements are nested deeper than {MAX_NESTING_DEPTH} levels"
            if problem not in self.problems:
                self.problems.append(problem)
        self.frames.append(frame)

    def close(self) -> None:
        """Close the innermost element and attach its value to its parent."""
        frame = self.frames.pop()
        parent = self.top
        value = self._value(frame)
        if frame.kind == "item":
            if parent.items is None:
                parent.items = []
            parent.items.append(value)
            return
        if parent.children is None:
            parent.children = {}
        if frame.name is None:
            return
        if frame.name in parent.children:
            self.problems.append(f"argument {frame.name!r} is given twice")
        parent.children[frame.name] = value

    def close_to_tool(self) -> None:
        """Close every open element (the call ended while some were open)."""
        while len(self.frames) > 1:
            self.close()

    def _value(self, frame: Frame) -> Any:
        text = frame.value_text()
        label = f"argument {frame.name!r}" if frame.kind == "arg" else "an <item>"
        if frame.children is not None or frame.items is not None:
            if text.strip():
                self.problems.append(f"{label} mixes text with <arg>/<item> elements")
            if frame.children is not None and frame.items is not None:
                self.problems.append(f"{label} mixes <arg> and <item> elements")
            return frame.children if frame.children is not None else frame.items
        return text

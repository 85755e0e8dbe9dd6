"""Turns a call as written into a ToolInvocation: arguments, rationale, coercion and id."""

from __future__ import annotations

import json
import re
from typing import Any

from autobyteus_like.parsers._call_shapes import CallSpec, json_type
from autobyteus_like.parsers._json_scanner import load_json
from autobyteus_like.parsers._parse_events import (
    ParseErrorInfo,
    ParseEvent,
    ToolCallCompleted,
    ToolCallFailed,
    ToolCallStarted,
)
from autobyteus_like.tools._invocation import ToolInvocation
from autobyteus_like.tools._invocation_ids import InvocationIdAllocator
from autobyteus_like.tools._registry import ToolRegistry

__all__ = ["CallBuilder", "snippet", "without_lone_surrogates"]

_SNIPPET = 240
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_VALIDATE_INVOCATION = ToolInvocation.__pydantic_validator__.validate_python


def snippet(text: str) -> str:
    """At most a few lines of the offending text, for the error message."""
    text = text.strip()
    return text if len(text) <= _SNIPPET else text[: _SNIPPET - 3] + "..."


def without_lone_surrogates(text: str) -> str:
    """``text`` with each lone surrogate written as its escape (``\\ud800``).

    For a call's name and id only: pydantic refuses lone surrogates in constrained strings, and no
    tool name can hold one, so the escaped name fails as an unknown tool in words the model can
    read. Arguments keep them unchanged, for validation and the tool to judge.
    """
    if text.isascii() or _LONE_SURROGATE.search(text) is None:
        return text
    return _LONE_SURROGATE.sub(lambda match: f"\\u{ord(match.group(0)):04x}", text)


def _clean(text: str | None) -> str | None:
    return None if text is None else without_lone_surrogates(text)


def _as_text(value: Any) -> str | None:
    """A non-string rationale as JSON text; None if JSON cannot print it (a native call's
    arguments are decoded without the parsers' nesting limit)."""
    try:
        return json.dumps(value)
    except (ValueError, TypeError, RecursionError):
        return None


class CallBuilder:
    """Numbers the calls of one response and builds their events. One per parser."""

    def __init__(
        self, format: str, tools: ToolRegistry | None, ids: InvocationIdAllocator
    ) -> None:
        self.format = format
        self.tools = tools
        self.ids = ids
        self.next_index = 0

    def take_index(self) -> int:
        """Reserve the next call position."""
        index = self.next_index
        self.next_index += 1
        return index

    def failure(
        self,
        message: str,
        raw: str,
        *,
        index: int | None = None,
        name: str | None = None,
        call_id: str | None = None,
    ) -> ToolCallFailed:
        """A failed call at ``index`` (a new position if None)."""
        position = self.take_index() if index is None else index
        return ToolCallFailed(
            ParseErrorInfo(
                message=message, snippet=snippet(raw), index=position, format=self.format,
                name=_clean(name), id=_clean(call_id),
            )
        )

    def from_spec(self, spec: CallSpec, raw: str) -> list[ParseEvent]:
        """Started + Completed for a good call, or one Failed event saying what is wrong."""
        if not spec.name:  # a call that names no tool is the model's to fix, never a crash
            return [self.failure('a tool call needs a non-empty "name"', raw, call_id=spec.id)]
        arguments = spec.arguments
        if arguments is None:
            arguments = {}
        elif isinstance(arguments, str):
            ok, decoded, reason = load_json(arguments) if arguments.strip() else (True, {}, "")
            if not ok:
                return [self.failure(
                    f"invalid_json: the arguments of '{spec.name}' are not valid JSON ({reason})",
                    raw, name=spec.name, call_id=spec.id,
                )]
            arguments = decoded
        if not isinstance(arguments, dict):
            return [self.failure(
                f"the arguments of '{spec.name}' must be a JSON object, "
                f"got {json_type(arguments)}",
                raw, name=spec.name, call_id=spec.id,
            )]
        index = self.next_index
        self.next_index = index + 1
        name = without_lone_surrogates(spec.name)
        call_id = None if spec.id is None else without_lone_surrogates(spec.id)
        return [
            ToolCallStarted(index=index, name=name, id=call_id),
            ToolCallCompleted(self._built(name, arguments, call_id, spec.why), index),
        ]

    def build(
        self, name: str, arguments: dict[str, Any], call_id: str | None, why: Any = None
    ) -> ToolInvocation:
        """The invocation: ``why`` lifted out unless declared, id assigned. Values stay as
        written: the tool's arguments model converts them, once, when the call is validated."""
        return self._built(without_lone_surrogates(name), arguments, _clean(call_id), why)

    def _built(self, name: str, arguments: dict[str, Any], call_id: str | None, why: Any
               ) -> ToolInvocation:
        """``build`` for a name and id already cleaned of lone surrogates."""
        if "why" in arguments:
            tool = self.tools.find(name) if self.tools is not None else None
            if tool is None or not tool.declares("why"):
                arguments = dict(arguments)  # the caller's dict stays as it was
                lifted = arguments.pop("why")
                why = why if why is not None else lifted
        rationale = None if why is None else (why if isinstance(why, str) else _as_text(why))
        # validated as ToolInvocation(...) would, without its Python __init__ in between
        invocation: ToolInvocation = _VALIDATE_INVOCATION({
            "id": self.ids.claim(call_id) if call_id else self.ids.allocate(name, arguments),
            "name": name,
            "arguments": arguments,
            "why": rationale.strip() or None if rationale is not None else None,
        })
        return invocation

"""Which JSON values are tool calls: every call shape models are known to write.

Recognised (and lists of any of them): ``{"tool_calls": [...]}``, ``{"tools": [...]}``,
``{"tool": {...}}``, ``{"function": {"name", "arguments"}}``, ``{"functionCall": {...}}``,
``{"name", "arguments" | "args" | "parameters" | "input"}``, ``{"tool": "<name>", "args"}``,
``{"function": "<name>", "parameters"}`` and Command R's ``{"tool_name": "<name>",
"parameters"}``. A plain object with a "name" but no argument key is prose, not a call; a
value nested inside some other object is data, never a call.

A call whose JSON is broken is one error, never a call; ``broken_call_identity`` reads its name and
id from the text where they can be read, so the model learns which call to write again.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from autobyteus_like._frozen_values import fast_frozen

__all__ = [
    "ARGUMENT_KEYS",
    "LIST_KEYS",
    "CallProblem",
    "CallSpec",
    "broken_call_identity",
    "extract_calls",
    "looks_like_call_text",
]

ARGUMENT_KEYS = ("arguments", "args", "parameters", "input")
LIST_KEYS = ("tool_calls", "tools")
"""Keys of an object whose array value is a list of calls."""
_WRAPPER_KEYS = ("function", "functionCall", "tool")
_RATIONALE_KEYS = ("reasoning", "why")


@fast_frozen
@dataclass(frozen=True, slots=True)
class CallSpec:
    """A call as written: its arguments may still be JSON text or the wrong type."""

    name: str
    arguments: Any
    id: str | None = None
    why: Any = None


@fast_frozen
@dataclass(frozen=True, slots=True)
class CallProblem:
    """Something in a call position that is not a usable call."""

    message: str
    name: str | None = None


def _arguments_of(body: dict[str, Any]) -> tuple[bool, Any]:
    for key in ARGUMENT_KEYS:
        if key in body:
            return True, body[key]
    return False, None


def _rationale(*bodies: dict[str, Any]) -> Any:
    for body in bodies:
        for key in _RATIONALE_KEYS:
            if body.get(key) is not None:
                return body[key]
    return None


def _call_id(*bodies: dict[str, Any]) -> str | None:
    for body in bodies:
        value = body.get("id")
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def _one(obj: Any, explicit: bool) -> CallSpec | CallProblem | None:
    """One object as a call; ``explicit`` means it sits where only calls belong."""
    if not isinstance(obj, dict):
        if explicit:
            return CallProblem(f"expected a tool call object, got {json_type(obj)}")
        return None
    for key in _WRAPPER_KEYS:
        inner = obj.get(key)
        if not isinstance(inner, dict):
            continue
        name = inner.get("name")
        if not isinstance(name, str):  # an empty name is still a call (one naming no tool)
            name = inner.get("function")
        if isinstance(name, str):
            has_args, arguments = _arguments_of(inner)
            return CallSpec(
                name=str(name),
                arguments=arguments if has_args else {},
                id=_call_id(obj, inner),
                why=_rationale(obj, inner),
            )
        # Shapes compose: {"tool": {"function": {"name", "arguments"}}} is a call wrapped
        # twice (the wrapper's own id and rationale are kept when the inner call has none).
        nested = _one(inner, explicit=False) if _wraps_a_call(inner) else None
        if isinstance(nested, CallSpec):
            return CallSpec(name=nested.name, arguments=nested.arguments,
                            id=nested.id or _call_id(obj),
                            why=nested.why if nested.why is not None else _rationale(obj))
    # The plain shape, the common one: the helpers' single-body work, written out (no frames)
    has_args, arguments = False, None
    for key in ARGUMENT_KEYS:
        if key in obj:
            has_args, arguments = True, obj[key]
            break
    name = obj.get("name")
    if not isinstance(name, str):
        name = next(
            (obj[key] for key in ("tool", "function", "tool_name")
             if isinstance(obj.get(key), str)), None
        )
    if isinstance(name, str) and (has_args or explicit):
        call_id = obj.get("id")
        why = None
        for key in _RATIONALE_KEYS:
            if obj.get(key) is not None:
                why = obj[key]
                break
        return CallSpec(
            name=name,
            arguments=arguments if has_args else {},
            id=call_id.strip() or None if isinstance(call_id, str) else None,
            why=why,
        )
    if explicit:
        return CallProblem("a tool call needs a \"name\" and an \"arguments\" object")
    return None


def _wraps_a_call(obj: dict[str, Any]) -> bool:
    """Whether an object holds nothing but a call wrapper (and an id or rationale): only then
    is it read as a wrapped call, never an arbitrary object that happens to hold one."""
    return any(isinstance(obj.get(key), dict) for key in _WRAPPER_KEYS) and set(obj) <= {
        *_WRAPPER_KEYS, "id", "type", *_RATIONALE_KEYS}


def json_type(value: Any) -> str:
    """The JSON name of a Python value's type, for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def _from_list(items: list[Any], explicit: bool) -> list[CallSpec | CallProblem] | None:
    found = [_one(item, explicit=False) for item in items]
    if not explicit and not any(isinstance(f, CallSpec) for f in found):
        return None
    return [
        f if f is not None else CallProblem(
            f"element {index} of the call list is not a tool call ({_not_a_call(item)})"
        )
        for index, (item, f) in enumerate(zip(items, found, strict=True))
    ]


def _not_a_call(item: Any) -> str:
    if isinstance(item, dict):
        return 'it needs a "name" and an "arguments" object'
    return f"expected an object, got {json_type(item)}"


def extract_calls(value: Any, explicit: bool = False) -> list[CallSpec | CallProblem] | None:
    """The calls a JSON value holds, in order; None when it is not a call at all (prose).

    ``explicit`` marks a position where only calls belong (an ``<execute>`` array), so anything
    else there is a problem rather than prose.
    """
    if isinstance(value, list):
        return _from_list(value, explicit)
    if isinstance(value, dict):
        for key in LIST_KEYS:
            if isinstance(value.get(key), list):
                inner = _from_list(value[key], explicit=False)
                if inner is not None:
                    return inner
        single = _one(value, explicit)
        return [single] if single is not None else None
    if explicit:
        return [CallProblem(f"expected a tool call object, got {json_type(value)}")]
    return None


def looks_like_call_text(text: str) -> bool:
    """Whether broken JSON text was meant as a call (a call key and an argument or list key)."""
    has_name = any(f'"{key}"' in text
                   for key in ("name", "tool", "function", "functionCall", "tool_name"))
    has_body = any(f'"{key}"' in text for key in (*ARGUMENT_KEYS, *LIST_KEYS))
    return has_name and has_body


# A JSON string; one cut off by the end of the text runs to the end, so no position inside it is
# scanned twice (a failed match there would make reading a long broken call quadratic).
_STRING = r'"[^"\\]*(?:\\.[^"\\]*)*(?:"|\\?\Z)'
# A member with a string value, a member opening a container, any other string, a bracket.
_PIECE = re.compile(
    rf'({_STRING})[ \t\n\r]*:[ \t\n\r]*(?:({_STRING})|([{{\[]))|{_STRING}|([{{\[])|[}}\]]',
    re.DOTALL,  # an escaped newline is still one escape, never the end of a match
)


def _read_string(token: str) -> str | None:
    """A JSON string token's value; None if it is cut off or its escapes are broken."""
    if len(token) < 2 or not token.endswith('"'):
        return None
    try:
        value = json.loads(token)
    except ValueError:
        return None
    return value if isinstance(value, str) else None


def broken_call_identity(text: str) -> tuple[str | None, str | None]:
    """The name and id of a call written as broken JSON, where they can be read.

    ``text`` starts at the call object's ``{``. Only members of that object and of its wrapper
    (``"function"``, ``"functionCall"``, ``"tool"``) are read, as ``extract_calls`` would; one
    pass, linear in the text.
    """
    members: dict[tuple[str, str], str] = {}  # (wrapper key or "", member key) -> string value
    path: list[str] = []  # the key each open container sits under ("" for none)
    for match in _PIECE.finditer(text):
        key, value, member_open, bare_open = match.groups()
        if member_open is not None or bare_open is not None:
            path.append((_read_string(key) or "") if member_open is not None else "")
        elif value is not None:
            where = path[1] if len(path) == 2 and path[1] in _WRAPPER_KEYS else None
            if len(path) == 1 or where is not None:
                member, read = _read_string(key), _read_string(value)
                if member is not None and read is not None:
                    members.setdefault((where or "", member), read)
        elif match.group(0) in ("}", "]"):
            if path:
                path.pop()
            if not path:
                break
    name = next(
        (members.get((wrapper, key)) for wrapper in _WRAPPER_KEYS for key in ("name", "function")
         if members.get((wrapper, key))),
        None,
    ) or next((members[("", key)] for key in ("name", "tool", "function", "tool_name")
               if members.get(("", key))), None)
    call_id = next((members[(where, "id")].strip() for where in ("", *_WRAPPER_KEYS)
                    if members.get((where, "id"), "").strip()), None)
    return name, call_id

"""What a tool returned, as the one JSON value every reader gets (the LLM, events, logs, the
store): serialised value by value, and cut to a size.

* Anything pydantic can serialise is kept (models, dates, sets, UTF-8 bytes); a value that
  cannot be (bytes that are not UTF-8, an object of no known shape) becomes a string saying
  what it was, in its place, and the rest stays JSON.
* NaN and the infinities, which JSON cannot hold, become ``null`` everywhere.
* A result longer than its limit (as text, or as JSON text) is cut, with a note saying how
  long it was; MCP results are cut the same way.
"""

from __future__ import annotations

import base64
import json
import re
from typing import Any

from pydantic_core import to_json, to_jsonable_python

__all__ = ["DEFAULT_MAX_RESULT_CHARS", "capped", "json_value"]

DEFAULT_MAX_RESULT_CHARS = 100_000
"""The default limit of a result's length, in characters (as MCP servers' results)."""

_PLAIN = frozenset({str, int, bool, type(None)})
_MAX_DEPTH = 200
_SHOWN_BYTES = 3_000


def json_value(value: Any) -> Any:
    """``value`` as JSON data (never raises)."""
    if type(value) in _PLAIN:
        return value
    try:
        return to_jsonable_python(value, inf_nan_mode="null")
    except Exception:  # one value spoils it: convert value by value
        return _by_value(value, 0)


def _by_value(value: Any, depth: int) -> Any:
    if type(value) in _PLAIN:
        return value
    if depth > _MAX_DEPTH:
        return f"<a {type(value).__name__} nested more than {_MAX_DEPTH} levels deep>"
    if isinstance(value, bytes | bytearray | memoryview):
        return _bytes(bytes(value))
    if isinstance(value, dict):
        return {_key(key): _by_value(item, depth + 1) for key, item in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [_by_value(item, depth + 1) for item in value]
    try:
        return to_jsonable_python(value, inf_nan_mode="null")
    except Exception:
        return _unserialisable(value)


def _bytes(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        shown = base64.b64encode(data[:_SHOWN_BYTES]).decode("ascii")
        more = "" if len(data) <= _SHOWN_BYTES else f" (the first {_SHOWN_BYTES})"
        return f"<{len(data)} bytes, not UTF-8 text; base64{more}: {shown}>"


def _key(key: Any) -> str:
    return key if isinstance(key, str) else str(_by_value(key, _MAX_DEPTH))


def _unserialisable(value: Any) -> str:
    try:
        shown = repr(value)
    except Exception:
        return f"<a {type(value).__name__} that cannot be shown>"
    if len(shown) > 200:
        shown = shown[:199] + "…"
    return f"<a {type(value).__name__} that cannot be serialised as JSON: {shown}>"


def capped(content: Any, max_chars: int) -> Any:
    """The content, or its text (JSON for anything but a string) cut to ``max_chars`` with a
    note saying how long it was."""
    if isinstance(content, str):
        text = content
    elif type(content) in _PLAIN or isinstance(content, float):
        return content
    else:
        try:
            if len(to_json(content)) <= max_chars:  # compact UTF-8: no shorter in characters
                return content
        except ValueError:  # text UTF-8 cannot hold (lone surrogates): measured as text below
            pass
        try:
            text = json.dumps(content, ensure_ascii=False)
        except (TypeError, ValueError, RecursionError):
            return "[the result could not be shown: it is not plain JSON]"
    total = len(text)
    if isinstance(content, str) and (earlier := _CUT.search(text)) is not None:
        text, total = text[:earlier.start()], int(earlier.group(1))  # cut before (an MCP
        # server's result): measured without its note, and the note keeps the true length
        if len(text) <= max_chars:
            return content
    elif total <= max_chars:
        return content
    return (f"{text[:max_chars]}\n[cut: the result is {total} characters long; "
            f"the first {max_chars} are shown]")


_CUT = re.compile(r"\n\[cut: the result is (\d+) characters long; the first \d+ are shown\]\Z")

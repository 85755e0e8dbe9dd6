"""A short string that matches a regular expression, derived from its parsed form, so a tool's
example call can satisfy ``Field(pattern=...)`` (the LLM learns from the example what a valid
value looks like).

Python's own regex parser reads the pattern (JSON Schema patterns are ECMA regexes; the common
subset reads the same); each piece gives its first choice: a literal, the first character of a
class, the fewest repeats allowed. Lookarounds and back-references are not derived (None
throughout, for "no string derived").
"""

from __future__ import annotations

import re
from re import _constants as _sre  # type: ignore[attr-defined]  # the regex parser (3.11+)
from re import _parser as _parse  # type: ignore[attr-defined]
from typing import Any

__all__ = ["string_for_pattern"]

_PREFERRED = "a"
"""Tried first where a class allows it, so examples read as words."""


def string_for_pattern(pattern: str, min_length: int = 0, max_length: int | None = None,
                       hint: str = "") -> str | None:
    """A string ``re.search(pattern, s)`` accepts, within the lengths; None if none is found."""
    try:
        compiled = re.compile(pattern)
        parsed = _parse.parse(pattern)
    except (re.error, RecursionError, OverflowError):
        return None
    candidates = [hint] if hint else []
    try:
        derived = _derive(list(parsed), 0)
    except (RecursionError, OverflowError):
        derived = None
    if derived is not None:
        candidates.append(derived)
    for candidate in candidates:
        fitted = _fit(candidate, compiled, min_length, max_length)
        if fitted is not None:
            return fitted
    return None


def _fit(text: str, compiled: re.Pattern[str], min_length: int, max_length: int | None
         ) -> str | None:
    if not compiled.search(text):
        return None
    if (max_length is None or len(text) <= max_length) and len(text) >= min_length:
        return text
    return None


def _derive(items: list[tuple[Any, Any]], depth: int) -> str | None:
    if depth > 50:
        return None
    out: list[str] = []
    for op, value in items:
        piece = _piece(op, value, depth)
        if piece is None:
            return None
        out.append(piece)
    return "".join(out)


def _piece(op: Any, value: Any, depth: int) -> str | None:
    if op is _sre.LITERAL:
        return chr(value)
    if op is _sre.NOT_LITERAL:
        return "a" if value != ord("a") else "b"
    if op is _sre.ANY:
        return _PREFERRED
    if op is _sre.IN:
        return _from_class(value)
    if op in (_sre.MAX_REPEAT, _sre.MIN_REPEAT, getattr(_sre, "POSSESSIVE_REPEAT", None)):
        low, _high, body = value
        repeated = _derive(list(body), depth + 1)
        return None if repeated is None else repeated * int(low)
    if op is _sre.SUBPATTERN:
        return _derive(list(value[-1]), depth + 1)
    if op is getattr(_sre, "ATOMIC_GROUP", None):
        return _derive(list(value), depth + 1)
    if op is _sre.BRANCH:
        return _derive(list(value[1][0]), depth + 1)
    if op is _sre.AT:
        return ""
    return None


def _from_class(members: list[tuple[Any, Any]]) -> str | None:
    if members and members[0][0] is _sre.NEGATE:
        excluded = _class_chars(members[1:])
        if excluded is None:
            return None
        return next((char for char in "aA0_-x" if char not in excluded), None)
    allowed = _class_chars(members)
    if not allowed:
        return None
    for char in (_PREFERRED, "A", "0"):
        if char in allowed:
            return char
    return sorted(allowed)[0]


def _class_chars(members: list[tuple[Any, Any]]) -> set[str] | None:
    chars: set[str] = set()
    for op, value in members:
        if op is _sre.LITERAL:
            chars.add(chr(value))
        elif op is _sre.RANGE:
            low, high = value
            chars.update(chr(code) for code in range(low, min(high, low + 200) + 1))
        elif op is _sre.CATEGORY:
            chars.update(_CATEGORIES.get(value, ""))
        else:
            return None
    return chars


_CATEGORIES = {
    _sre.CATEGORY_DIGIT: "0123456789",
    _sre.CATEGORY_WORD: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_",
    _sre.CATEGORY_SPACE: " ",
    _sre.CATEGORY_NOT_DIGIT: "a",
    _sre.CATEGORY_NOT_WORD: "-",
    _sre.CATEGORY_NOT_SPACE: "a",
}

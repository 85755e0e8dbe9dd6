"""Session-unique invocation ids: deterministic from name and arguments, plus a counter (seed 003).

An allocator belongs to one agent session; two sessions never share one. Allocating never raises,
whatever the model wrote: lone surrogates are hashed as they are (UTF-8 with ``surrogatepass``),
and arguments JSON cannot print (an integer too long to convert, nesting past the recursion
limit) hash by the tool name alone; the counter keeps those ids unique.

The canonical text is ``json.dumps(arguments, sort_keys=True, separators=(",", ":"),
ensure_ascii=False, default=str)``, written by one encoder made once (building an encoder per call
cost twice the encoding of a small call's arguments).
"""

from __future__ import annotations

import hashlib
import json
import json.encoder
from collections.abc import Callable, Iterable
from typing import Any

__all__ = ["InvocationIdAllocator"]


def _canonical_encoder() -> Callable[[Any], str]:
    """``json.dumps`` with the canonical settings, its encoder made once.

    Python's C encoder is used without its circular-reference check: a circular value then fails
    with RecursionError instead of ValueError, and both mean "not JSON-printable" here. Without the
    C encoder (another Python), a JSONEncoder made once does the same work.
    """
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:  # pragma: no cover - CPython always has it
        return json.JSONEncoder(
            sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str
        ).encode
    encode = make(None, str, json.encoder.encode_basestring, None, ":", ",", True, False, True)

    def canonical(value: Any) -> str:
        return "".join(encode(value, 0))

    return canonical


_canonical = _canonical_encoder()


class InvocationIdAllocator:
    """Hands out ids that are unique within its session."""

    def __init__(self) -> None:
        self._used: set[str] = set()
        self._counts: dict[str, int] = {}

    def allocate(self, name: str, arguments: dict[str, Any]) -> str:
        """A new id: ``call_<hash of name and canonical arguments>_<n>``."""
        try:
            canonical = _canonical(arguments)
        except (ValueError, TypeError, RecursionError):
            canonical = "\x00"  # not JSON-printable; no JSON text is this
        key = f"{name}\x00{canonical}".encode("utf-8", "surrogatepass")
        base = "call_" + hashlib.sha256(key).hexdigest()[:12]
        n = self._counts.get(base, 0) + 1
        candidate = f"{base}_{n}"
        if candidate in self._used:  # a model supplied this very id before
            return self._unique(base, start=n + 1)
        self._counts[base] = n
        self._used.add(candidate)
        return candidate

    def claim(self, supplied: str) -> str:
        """Keep an id the model supplied; a repeat within the session gets a suffix."""
        if supplied not in self._used:
            self._used.add(supplied)
            return supplied
        # from the last suffix given for it: a model repeating one id k times costs O(k)
        return self._unique(supplied, start=self._counts.get(supplied, 1) + 1)

    def restore(self, used: Iterable[str]) -> None:
        """Take back the ids a stored session used (oldest first), so that the calls after a
        resume get the ids they would have had without the interruption."""
        for used_id in used:
            self._used.add(used_id)
            base, _, number = used_id.rpartition("_")
            if base and number.isdigit():
                self._counts[base] = max(self._counts.get(base, 0), int(number))

    def used(self) -> list[str]:
        """Every id handed out or claimed (to ``restore`` into another allocator)."""
        return list(self._used)

    def _unique(self, base: str, start: int) -> str:
        n = start
        while f"{base}_{n}" in self._used:
            n += 1
        self._counts[base] = n
        candidate = f"{base}_{n}"
        self._used.add(candidate)
        return candidate

"""Session-unique invocation ids: deterministic from name and arguments, plus a counter (seed 003).

An allocator belongs to one agent session; two sessions never share one. Allocating never raises,
whatever the model wrote: lone surrogates are hashed as they are (UTF-8 with ``surrogatepass``),
and arguments JSON cannot print (an integer too long to convert, nesting past the recursion
limit) hash by the tool name alone; the counter keeps those ids unique.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

__all__ = ["InvocationIdAllocator"]


class InvocationIdAllocator:
    """Hands out ids that are unique within its session."""

    def __init__(self) -> None:
        self._used: set[str] = set()
        self._counts: dict[str, int] = {}

    def allocate(self, name: str, arguments: dict[str, Any]) -> str:
        """A new id: ``call_<hash of name and canonical arguments>_<n>``."""
        try:
            canonical = json.dumps(
                arguments, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str
            )
        except (ValueError, TypeError, RecursionError):
            canonical = "\x00"  # not JSON-printable; no JSON text is this
        key = f"{name}\x00{canonical}".encode("utf-8", "surrogatepass")
        digest = hashlib.sha256(key).hexdigest()[:12]
        return self._unique(f"call_{digest}", start=self._counts.get(f"call_{digest}", 0) + 1)

    def claim(self, supplied: str) -> str:
        """Keep an id the model supplied; a repeat within the session gets a suffix."""
        if supplied not in self._used:
            self._used.add(supplied)
            return supplied
        return self._unique(supplied, start=2)

    def _unique(self, base: str, start: int) -> str:
        n = start
        while f"{base}_{n}" in self._used:
            n += 1
        self._counts[base] = n
        candidate = f"{base}_{n}"
        self._used.add(candidate)
        return candidate

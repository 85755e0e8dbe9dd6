"""How much of a chunk's end might be the start of a marker split across chunks."""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["PartialMarker"]


class PartialMarker:
    """Knows every proper prefix of a set of markers (case-insensitive)."""

    def __init__(self, markers: Iterable[str]) -> None:
        words = [m.lower() for m in markers]
        self._prefixes = {w[:k] for w in words for k in range(1, len(w))}
        self._starts = "".join(sorted({w[0] for w in words if w}))
        self._longest = max((len(w) for w in words), default=1) - 1

    def hold(self, data: str, start: int) -> int:
        """Length of the longest suffix of ``data[start:]`` that may begin a marker."""
        n = len(data)
        window = max(start, n - self._longest)
        best = 0
        for char in self._starts:
            at = data.find(char, window)
            while at != -1 and n - at > best:
                if data[at:].lower() in self._prefixes:
                    best = n - at
                    break
                at = data.find(char, at + 1)
        return best

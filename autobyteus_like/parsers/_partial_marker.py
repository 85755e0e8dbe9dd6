"""How much of a chunk's end might be the start of a marker split across chunks."""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["PartialMarker"]


class PartialMarker:
    """Knows every proper prefix of a set of markers, case-insensitively by default.

    One regular expression of all the prefixes, anchored at the end and searched only in the last
    few characters: the leftmost match there is the longest held suffix. Its case-insensitivity is
    the ``re`` module's, the same as the searches that find the markers themselves, so a stream
    holds back exactly what a whole text could still read as a marker.
    """

    def __init__(self, markers: Iterable[str], *, ignore_case: bool = True) -> None:
        words = [m for m in markers if m]
        prefixes = sorted({w[:k] for w in words for k in range(1, len(w))}, key=len, reverse=True)
        self._longest = max((len(p) for p in prefixes), default=0)
        pattern = "|".join(re.escape(p) for p in prefixes) or "(?!)"
        self._suffix = re.compile(f"(?:{pattern})\\Z", re.IGNORECASE if ignore_case else 0)

    def hold(self, data: str, start: int) -> int:
        """Length of the longest suffix of ``data[start:]`` that may begin a marker."""
        n = len(data)
        match = self._suffix.search(data, max(start, n - self._longest))
        return 0 if match is None else n - match.start()

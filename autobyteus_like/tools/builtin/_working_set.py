"""WorkingSet: one agent's hot and cold paths (``memory.advise``, seed 001 §3.4).

Hot paths are kept in the model's context (their current content, by the history processor
``history.working_set_context``); cold paths are dropped from it (the results of calls that
named them). A path is hot or cold, never both: the latest advice wins. The set is bounded
(``MAX_PATHS`` of each, oldest advice dropped first), thread-safe (the tool writes it on a
worker thread, the processor reads it on the LLM thread), and tells ``on_change`` each new
state (a session stores it).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["MAX_PATHS", "WorkingSet"]

MAX_PATHS = 32
"""Hot paths, and cold paths, an agent's working set holds."""


def _entries(data: object, kind: str) -> dict[str, str]:
    if not isinstance(data, Mapping):
        return {}
    found: dict[str, str] = {}
    for entry in data.get(kind, []) or []:
        if isinstance(entry, Mapping) and isinstance(entry.get("path"), str):
            found[entry["path"]] = str(entry.get("why", ""))
    return found


class WorkingSet:
    """Hot and cold paths with their whys, in the order they were advised."""

    def __init__(self, saved: Mapping[str, Any] | None = None,
                 on_change: Callable[[dict[str, Any]], None] | None = None) -> None:
        self._lock = threading.Lock()
        self._hot = _entries(saved, "hot")
        self._cold = _entries(saved, "cold")
        self.on_change = on_change

    def advise(self, hot: Mapping[str, str], cold: Mapping[str, str]) -> dict[str, Any]:
        with self._lock:
            for path, why in hot.items():
                self._cold.pop(path, None)
                self._hot.pop(path, None)  # re-advised: it moves to the newest
                self._hot[path] = why
            for path, why in cold.items():
                self._hot.pop(path, None)
                self._cold.pop(path, None)
                self._cold[path] = why
            for kept in (self._hot, self._cold):
                while len(kept) > MAX_PATHS:
                    del kept[next(iter(kept))]
            state = self._snapshot()
            if self.on_change is not None:  # under the lock: stored in the order made
                self.on_change(state)
        return state

    def _snapshot(self) -> dict[str, Any]:
        return {"hot": [{"path": p, "why": w} for p, w in self._hot.items()],
                "cold": [{"path": p, "why": w} for p, w in self._cold.items()]}

    def snapshot(self) -> dict[str, Any]:
        """``{"hot": [{"path", "why"}, ...], "cold": [...]}``."""
        with self._lock:
            return self._snapshot()

    def hot(self) -> dict[str, str]:
        with self._lock:
            return dict(self._hot)

    def cold(self) -> dict[str, str]:
        with self._lock:
            return dict(self._cold)

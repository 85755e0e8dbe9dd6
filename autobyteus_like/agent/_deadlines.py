"""Deadlines: callbacks due at a time, fired by the thread that owns them, between its messages.

Tool timeouts must fire even when the tools' asyncio loop is blocked (an async tool that calls
``time.sleep``) or every pool thread is stuck. The agent's actor is neither: it never runs a tool
body nor waits on one. So its mailbox keeps the deadlines (``DeadlineInbox``): before the actor
sleeps, the mailbox waits for the next message at most until the earliest deadline, and if none
came by then the actor fires what is due. No thread of its own (an agent used to keep one for
this, 500 threads on a host of 500 agents), and nothing to wake when a call starts or ends.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Hashable

from loguru import logger

__all__ = ["Deadlines"]


class Deadlines:
    """``add(key, seconds, overdue)``; ``overdue()`` runs in ``fire_due`` once the time has
    passed, unless ``remove(key)`` came first. ``add`` and ``fire_due`` belong to the owner's
    thread (it asks ``wait_s`` before it sleeps, so an entry added elsewhere while it sleeps
    would be seen only at its next message); ``remove`` and ``stop`` may come from any thread."""

    def __init__(self, name: str) -> None:
        self._name = name
        self.entries: dict[Hashable, tuple[float, Callable[[], None]]] = {}
        """Due time and callback by key (read it, empty or not, from the owner's thread;
        change it only through the methods)."""
        self._lock = threading.Lock()
        self._stopped = False

    def add(self, key: Hashable, seconds: float, overdue: Callable[[], None]) -> None:
        """Call ``overdue`` after ``seconds`` unless removed first."""
        with self._lock:
            if not self._stopped:
                self.entries[key] = (time.monotonic() + seconds, overdue)

    def remove(self, key: Hashable) -> None:
        """Forget ``key`` (its call finished in time)."""
        with self._lock:
            self.entries.pop(key, None)

    def wait_s(self) -> float | None:
        """Seconds until the earliest entry is due (0 if one is), None if there is none."""
        entries = self.entries
        if not entries:
            return None
        with self._lock:
            earliest = min((at for at, _ in entries.values()), default=None)
        return None if earliest is None else max(0.0, earliest - time.monotonic())

    def fire_due(self) -> None:
        """Run (and forget) every entry whose time has passed, in the calling thread."""
        now = time.monotonic()
        with self._lock:
            due = [(key, callback) for key, (at, callback) in self.entries.items() if at <= now]
            for key, _ in due:
                del self.entries[key]
        for _, callback in due:
            try:
                callback()
            except Exception as exc:  # one callback's bug must not stop every timeout
                logger.opt(exception=exc).error("{}: a deadline callback failed", self._name)

    def stop(self) -> None:
        """Forget every entry; later ones are ignored (pending entries never fire)."""
        with self._lock:
            self._stopped = True
            self.entries.clear()

"""Deadlines: a thread that calls back for every entry whose time has passed.

Tool timeouts must fire even when the tools' asyncio loop is blocked (an async tool that calls
``time.sleep``) or every pool thread is stuck, so they live on a thread of their own. While
entries exist it wakes every ``poll_s``; adding an entry never wakes it unless it sleeps idle
(a wake-up per call cost ~80 us on the reference machine), so a call pays one dict insert.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Hashable

from loguru import logger

__all__ = ["Deadlines"]


class Deadlines:
    """``add(key, seconds, overdue)``; ``overdue()`` runs on this object's thread once the time
    has passed, unless ``remove(key)`` came first. The thread starts on the first entry."""

    def __init__(self, name: str, poll_s: float = 0.05) -> None:
        self._name = name
        self._poll_s = poll_s
        self._entries: dict[Hashable, tuple[float, Callable[[], None]]] = {}
        self._wake = threading.Condition(threading.Lock())
        self._idle = True
        self._stopped = False
        self._thread: threading.Thread | None = None

    def add(self, key: Hashable, seconds: float, overdue: Callable[[], None]) -> None:
        """Call ``overdue`` after ``seconds`` unless removed first."""
        with self._wake:
            if self._stopped:
                return
            self._entries[key] = (time.monotonic() + seconds, overdue)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name=f"{self._name}-deadlines",
                                                daemon=True)
                self._thread.start()
            elif self._idle:
                self._wake.notify()

    def remove(self, key: Hashable) -> None:
        """Forget ``key`` (its call finished in time)."""
        with self._wake:
            self._entries.pop(key, None)

    def _run(self) -> None:
        while True:
            with self._wake:
                while not self._entries and not self._stopped:
                    self._idle = True
                    self._wake.wait()
                self._idle = False
                if self._stopped:
                    return
                self._wake.wait(self._poll_s)
                now = time.monotonic()
                due = [(key, callback) for key, (at, callback) in self._entries.items()
                       if at <= now]
                for key, _ in due:
                    del self._entries[key]
            for _, callback in due:
                try:
                    callback()
                except Exception as exc:  # one callback's bug must not stop every timeout
                    logger.opt(exception=exc).error("{}: a deadline callback failed", self._name)

    def stop(self) -> None:
        """End the thread (pending entries never fire)."""
        with self._wake:
            self._stopped = True
            self._entries.clear()
            self._wake.notify()
            thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(5)

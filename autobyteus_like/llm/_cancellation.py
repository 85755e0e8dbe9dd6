"""Cancellation that can interrupt a blocked network read.

Closing an HTTP stream from another thread does not wake a thread blocked reading it; shutting
the socket down does. A ``Cancellation`` runs the callbacks providers register (cut this
connection: ``connection_watch``) when it is set, so stopping an agent is prompt and leaves no
thread, whether the call waits for its response or is mid-stream.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable

__all__ = ["Cancellation", "on_cancel"]


class Cancellation(threading.Event):
    """A ``threading.Event`` that also runs callbacks when set."""

    def __init__(self) -> None:
        super().__init__()
        self._callbacks: list[Callable[[], None]] = []
        self._guard = threading.Lock()

    def on_cancel(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Run ``callback`` when cancelled (now, if already); returns its remover."""
        with self._guard:
            self._callbacks.append(callback)
        if self.is_set():
            _quietly(callback)

        def remove() -> None:
            with self._guard:
                if callback in self._callbacks:
                    self._callbacks.remove(callback)

        return remove

    def set(self) -> None:
        super().set()
        with self._guard:
            callbacks = list(self._callbacks)
        for callback in callbacks:
            _quietly(callback)


def on_cancel(cancel: threading.Event, callback: Callable[[], None]) -> Callable[[], None]:
    """Register ``callback`` if ``cancel`` supports it (a plain Event only gets polled)."""
    if isinstance(cancel, Cancellation):
        return cancel.on_cancel(callback)
    return lambda: None


def _quietly(callback: Callable[[], None]) -> None:
    with contextlib.suppress(OSError):  # the connection was already gone
        callback()

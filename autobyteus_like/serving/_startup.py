"""What both serving commands do before they serve: take the address (a port in use is one
line, before the team is started), and turn a stop signal that arrives while the team starts
into a clean stop (the team's MCP servers and Ray hosts stopped again, no traceback).

Once serving, each face listens for the signals itself (anyio's signal receiver, which puts
these handlers back when it returns); after that a further signal is ignored while the team
stops, so the stop is never cut half way.
"""

from __future__ import annotations

import signal
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

from autobyteus_like.errors import UsageError

__all__ = ["StopSignals", "listening_socket", "stop_signals_handled"]

_SIGNALS = (signal.SIGTERM, signal.SIGHUP)
"""Ctrl-C's SIGINT is already a ``KeyboardInterrupt`` in Python."""


def listening_socket(host: str, port: int) -> socket.socket:
    """A socket listening at ``host:port`` (``UsageError`` saying why there cannot be one: the
    port is in use, the address is not this machine's)."""
    try:
        sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    except OSError as exc:
        raise UsageError(f"--http {host}:{port}: cannot listen there: {exc.strerror}") from None
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)
    except OSError as exc:
        sock.close()
        raise UsageError(f"--http {host}:{port}: cannot listen there: "
                         f"{exc.strerror or exc}") from None
    return sock


class StopSignals:
    """SIGTERM or SIGHUP while the team starts raises ``KeyboardInterrupt`` (so whatever was
    started is stopped by the caller's ``finally``); once ``stopping`` was called further ones
    are ignored, so the stop is never cut half way."""

    def __init__(self) -> None:
        self._stopping = False

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        if not self._stopping:
            # as Ctrl-C: nothing on the way out catches it, every ``finally`` runs
            raise KeyboardInterrupt(f"{signal.Signals(signum).name} while the team started; "
                                    "stopped what had started")

    def stopping(self) -> None:
        """From now on the command stops anyway: a signal changes nothing."""
        self._stopping = True


@contextmanager
def stop_signals_handled() -> Iterator[StopSignals]:
    """``StopSignals`` in force within (the old handlers come back at the end)."""
    handled = StopSignals()
    previous = {signum: signal.signal(signum, handled._on_signal) for signum in _SIGNALS}
    try:
        yield handled
    finally:
        handled.stopping()
        for signum, handler in previous.items():
            signal.signal(signum, handler)

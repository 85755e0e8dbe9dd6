"""The web server's connections, guarded: idle ones cannot lock it out.

A connection must send its request's header within ``header_timeout_s`` of opening (and each
later request's within as long of its first byte), and one that stays idle after an answer is
closed after ``idle_timeout_s`` (uvicorn's keep-alive). At
most ``max_connections`` are open at once, well below the process's file limit (half of it,
at most 1,000), so the team's own files and sockets (its LLM requests, its tools, its store)
never run out because of the web face. When the cap is reached, a new connection closes the
oldest one that has not yet sent a whole header (so whoever holds the token gets in while
others only open sockets); when every open connection is busy with a request, the new one is
closed instead. Each of these conditions is logged once (again only after the server was back
below half the cap), never once per connection.
"""

from __future__ import annotations

import asyncio
import logging
import resource
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from loguru import logger
from uvicorn.protocols.http.auto import AutoHTTPProtocol

__all__ = ["ConnectionGuard", "ConnectionLimits", "default_max_connections"]

_MOST = 1000
_NOISE = ("Invalid HTTP request received.",)
"""uvicorn's own per-connection warnings that a flood of bad connections would repeat."""


def _file_limit() -> int:
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    return 4 * _MOST if soft == resource.RLIM_INFINITY else soft


def default_max_connections() -> int:
    """Half the process's file limit, at most 1,000, at least 8."""
    return max(8, min(_MOST, _file_limit() // 2))


@dataclass(frozen=True)
class ConnectionLimits:
    """How long a connection may take and how many may be open."""

    max_connections: int
    header_timeout_s: float = 10.0
    idle_timeout_s: int = 5
    backlog: int = 64
    """Connections the kernel holds for the server to accept, and the most it accepts in one
    go (before their files are counted): kept small, so a burst cannot overshoot the cap by
    much."""

    @classmethod
    def for_this_process(cls) -> ConnectionLimits:
        """The cap from the file limit (``default_max_connections``), and a backlog of an
        eighth of it (16 to 128): the cap plus two bursts stay within the limit's three
        quarters, the last quarter the team's own."""
        return cls(default_max_connections(), backlog=max(16, min(128, _file_limit() // 8)))


class ConnectionGuard:
    """The open connections of one server (all on its event loop) and the limits they keep."""

    def __init__(self, limits: ConnectionLimits,
                 tell: Callable[[str], None] | None = None) -> None:
        self.limits = limits
        self._say = tell or logger.warning
        """Where a condition's line goes (the server's stderr, in ``serve``)."""
        self._open: dict[_Guarded, None] = {}  # in the order they opened
        self._headerless: dict[_Guarded, None] = {}  # open, no whole header yet: oldest first
        self._told: set[str] = set()  # conditions logged, until the server is back to normal
        self.closed_early = 0
        """Connections this guard closed (no header in time, or to make room)."""

    @property
    def open_connections(self) -> int:
        """How many connections are open now."""
        return len(self._open)

    def protocol_class(self) -> type[asyncio.Protocol]:
        """The HTTP protocol for ``uvicorn.Config(http=...)``: uvicorn's own, guarded."""
        return type("GuardedHTTPProtocol", (_Guarded,), {"guard": self})

    def install(self, loop: asyncio.AbstractEventLoop) -> None:
        """Log the event loop's accept failures (out of files) once, not once per accept,
        and uvicorn's per-connection noise once."""
        def handle(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
            if str(context.get("message", "")).startswith("socket.accept() out of system"):
                self._tell("accept", f"web: cannot accept connections: "
                                     f"{context.get('exception')} (the process is out of files)")
            else:
                loop.default_exception_handler(context)

        loop.set_exception_handler(handle)
        logging.getLogger("uvicorn.error").addFilter(self._quiet)

    def uninstall(self) -> None:
        """Let uvicorn's log be (the server is done)."""
        logging.getLogger("uvicorn.error").removeFilter(self._quiet)

    def _quiet(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if message in _NOISE:
            self._tell(message, f"web: {message} (such requests are not logged again)")
            return False
        return True

    def _tell(self, condition: str, line: str) -> None:
        if condition not in self._told:
            self._told.add(condition)
            self._say(line)

    def admit(self, connection: _Guarded) -> bool:
        """Whether a new connection may stay (making room when the cap is reached)."""
        if len(self._open) >= self.limits.max_connections:
            if not self._headerless:
                self._tell("busy", f"web: {len(self._open)} connections are open and busy, "
                                   "the most this server keeps; refusing new ones")
                return False
            oldest = next(iter(self._headerless))
            self._tell("full", f"web: {len(self._open)} connections are open, the most this "
                               "server keeps; closing the oldest that sent no request")
            self.closed_early += 1
            oldest.close()
        self._open[connection] = None
        self._headerless[connection] = None
        return True

    def header_received(self, connection: _Guarded) -> None:
        """``connection`` sent a whole header: it is no longer idle."""
        self._headerless.pop(connection, None)

    def header_begun(self, connection: _Guarded) -> None:
        """``connection`` (kept alive) begins its next request: its header is awaited again,
        as a new connection's is."""
        if connection in self._open:
            self._headerless[connection] = None

    def header_late(self, connection: _Guarded) -> None:
        """``connection`` sent no whole header in time: closed."""
        self._tell("late", f"web: closing connections that send no request within "
                           f"{self.limits.header_timeout_s:g} s")
        self.closed_early += 1
        connection.close()

    def forget(self, connection: _Guarded) -> None:
        """``connection`` is closed."""
        self._open.pop(connection, None)
        self._headerless.pop(connection, None)
        if len(self._open) < self.limits.max_connections // 2:
            self._told.discard("full")
            self._told.discard("busy")


class _Guarded(asyncio.Protocol):
    """uvicorn's HTTP protocol behind the guard (one per connection)."""

    guard: ClassVar[ConnectionGuard]

    def __init__(self, **kwargs: Any) -> None:
        self._inner: asyncio.Protocol = AutoHTTPProtocol(**kwargs)
        self._transport: asyncio.BaseTransport | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._admitted = False
        self._header = False
        self._tail = b""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._transport = transport
        if not self.guard.admit(self):
            assert isinstance(transport, asyncio.Transport)
            transport.abort()
            return
        self._admitted = True
        self._await_header()
        self._inner.connection_made(transport)

    def _await_header(self) -> None:
        self._header = False
        self._tail = b""
        self._timer = asyncio.get_running_loop().call_later(
            self.guard.limits.header_timeout_s, self.guard.header_late, self)

    def _answered(self) -> bool:
        """Whether the last request on this connection has had its whole answer (so what
        comes now is the next request's header)."""
        cycle = getattr(self._inner, "cycle", None)
        return bool(getattr(cycle, "response_complete", False))

    def data_received(self, data: bytes) -> None:
        if self._header and self._answered():  # the next request on a kept-alive connection
            self._await_header()
            self.guard.header_begun(self)
        if not self._header:
            seen = self._tail + data
            if b"\r\n\r\n" in seen:
                self._header = True
                self._cancel_timer()
                self.guard.header_received(self)
            else:
                self._tail = seen[-3:]
        self._inner.data_received(data)

    def eof_received(self) -> bool | None:
        return self._inner.eof_received()

    def pause_writing(self) -> None:
        self._inner.pause_writing()

    def resume_writing(self) -> None:
        self._inner.resume_writing()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_timer()
        self.guard.forget(self)
        if self._admitted:
            self._inner.connection_lost(exc)

    def close(self) -> None:
        """Close the connection (it has sent no request: nothing is cut)."""
        self._cancel_timer()
        self.guard.forget(self)
        if self._transport is not None:
            self._transport.close()

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

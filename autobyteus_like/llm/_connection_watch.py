"""Cutting a provider call at any moment, including while it waits for response headers.

An SDK call blocks in a socket read from the moment the request is sent; closing anything from
another thread does not wake it, shutting the socket down does. The SDKs accept our own httpx
client, and httpx tells a request's ``trace`` extension about each connection it opens (the TCP
stream, then the TLS stream wrapped around it). So every provider's client gets a request hook
(``client_options``) that, while a ``ConnectionWatch`` is active on the calling thread, refuses
to send once cancelled and registers each new connection's socket with the cancellation.

A pooled keep-alive connection is reused without any such event, so its socket could not be
found; every request therefore asks for ``Connection: close`` (one handshake per LLM call,
small next to a model's reply time). The TCP connect itself cannot be cut (no socket exists
until it completes); providers bound it with ``CONNECT_TIMEOUT_S`` where the SDK allows.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from typing import Any

from autobyteus_like.errors import LLMError
from autobyteus_like.llm._cancellation import on_cancel

__all__ = ["CONNECT_TIMEOUT_S", "ConnectionWatch", "client_options"]

CONNECT_TIMEOUT_S = 10.0
"""The longest a TCP/TLS connect may take: the one phase a cancellation cannot cut."""

_ACTIVE: ContextVar[ConnectionWatch | None] = ContextVar("autobyteus_connection_watch",
                                                          default=None)


class ConnectionWatch:
    """The connections of one provider call, cut when ``cancel`` is set.

    Use ``active()`` around every SDK call that may send a request; ``close()`` when the call
    is over (it unregisters from the cancellation, which outlives many calls).
    """

    def __init__(self, cancel: threading.Event) -> None:
        self.cancel = cancel
        self._forget: list[Callable[[], None]] = []

    @contextlib.contextmanager
    def active(self) -> Iterator[None]:
        """Requests sent inside this block (on this thread) belong to this call."""
        token = _ACTIVE.set(self)
        try:
            yield
        finally:
            _ACTIVE.reset(token)

    def watch(self, network_stream: Any) -> None:
        """Cut this connection on cancel (at once, if the call is already cancelled)."""
        sock = network_stream.get_extra_info("socket")
        if isinstance(sock, socket.socket):
            self._forget.append(on_cancel(self.cancel, lambda: _shut_down(sock)))

    def close(self) -> None:
        """Stop watching: the call is over."""
        for forget in self._forget:
            forget()
        self._forget.clear()


def _shut_down(sock: socket.socket) -> None:
    # A TCP socket wrapped by TLS is detached (its descriptor moved to the TLS socket, which
    # is watched too), and a finished call's socket may be closed already: both raise OSError.
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)


def _before_send(request: Any) -> None:
    """The httpx request hook: no keep-alive; refuse after cancel; trace the connection."""
    request.headers["Connection"] = "close"
    watch = _ACTIVE.get()
    if watch is None:
        return
    if watch.cancel.is_set():
        # Not an httpx error, so nothing retries it; ProviderCall sees the cancellation and
        # ends the call quietly.
        raise LLMError("the call was cancelled before this request was sent")
    earlier = request.extensions.get("trace")

    def trace(event: str, info: dict[str, Any]) -> None:
        if event.endswith(".complete") and hasattr(info.get("return_value"), "get_extra_info"):
            watch.watch(info["return_value"])  # connect_tcp, connect_unix_socket, start_tls
        if earlier is not None:
            earlier(event, info)

    request.extensions["trace"] = trace


def client_options() -> dict[str, Any]:
    """Keyword arguments for the httpx (or httpx2) ``Client`` an SDK is given."""
    return {"event_hooks": {"request": [_before_send]}}

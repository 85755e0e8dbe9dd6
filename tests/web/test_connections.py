"""The connection guard on a real uvicorn server (its own thread, real sockets): idle
connections make room for a request, a header must come in time, an idle keep-alive
connection is closed, and each condition is logged once."""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager

import pytest

from autobyteus_like.web._connections import (
    ConnectionGuard,
    ConnectionLimits,
    default_max_connections,
)

uvicorn = pytest.importorskip("uvicorn", reason="the web extra is not installed")


async def hello(scope, receive, send) -> None:
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-length", b"2")]})
    await send({"type": "http.response.body", "body": b"ok"})


@contextmanager
def guarded_server(limits: ConnectionLimits) -> Iterator[tuple[ConnectionGuard, int, list[str]]]:
    lines: list[str] = []
    guard = ConnectionGuard(limits, tell=lines.append)
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(256)
    server = uvicorn.Server(uvicorn.Config(hello, log_level="warning", lifespan="off",
                                           http=guard.protocol_class(),
                                           timeout_keep_alive=limits.idle_timeout_s))

    async def serve() -> None:
        guard.install(asyncio.get_running_loop())
        await server.serve(sockets=[listener])

    thread = threading.Thread(target=asyncio.run, args=(serve(),))
    thread.start()
    try:
        yield guard, listener.getsockname()[1], lines
    finally:
        server.should_exit = True
        thread.join(30)
        listener.close()
        guard.uninstall()
    assert not thread.is_alive()


def get(port: int) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=30) as connection:
        connection.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        return connection.recv(1024)


def closed_by_server(connection: socket.socket) -> bool:
    """Whether the server closed ``connection`` (reading what is left of an answer; waits
    at most 30 s)."""
    connection.settimeout(30)
    try:
        while connection.recv(4096):
            pass
    except ConnectionResetError:
        pass
    except TimeoutError:
        return False
    return True


def test_idle_connections_make_room_for_a_request_and_are_logged_once():
    with guarded_server(ConnectionLimits(max_connections=4, header_timeout_s=60)) as (
            guard, port, lines), ExitStack() as stack:
        idle = [stack.enter_context(socket.create_connection(("127.0.0.1", port)))
                for _ in range(10)]
        assert get(port).startswith(b"HTTP/1.1 200")
        # the oldest idle ones were closed to keep at most 4 open; the request got in
        assert all(closed_by_server(connection) for connection in idle[:7])
        assert guard.open_connections <= 4
    full = [line for line in lines if "the most this server keeps" in line]
    assert len(full) == 1, lines  # one line for the condition, not one per connection


def test_a_header_must_come_in_time_and_an_idle_connection_is_closed():
    with guarded_server(ConnectionLimits(max_connections=50, header_timeout_s=0.3,
                                         idle_timeout_s=1)) as (guard, port, lines):
        with socket.create_connection(("127.0.0.1", port)) as slow, \
                socket.create_connection(("127.0.0.1", port)) as silent:
            slow.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")  # never ends its header
            assert closed_by_server(slow) and closed_by_server(silent)
        with socket.create_connection(("127.0.0.1", port)) as kept:
            kept.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            assert kept.recv(1024).startswith(b"HTTP/1.1 200")  # not cut by the header timer
            assert closed_by_server(kept)  # then idle past its keep-alive
        with socket.create_connection(("127.0.0.1", port)) as again:
            again.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            assert again.recv(1024).startswith(b"HTTP/1.1 200")
            again.sendall(b"GET / HTTP/1.1\r\n")  # its next request's header never ends
            assert closed_by_server(again)
        assert guard.closed_early == 3
    assert len([line for line in lines if "send no request within 0.3 s" in line]) == 1


def test_the_cap_stays_below_the_file_limit():
    import resource

    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    assert default_max_connections() <= max(8, soft // 2)


def test_garbage_from_many_connections_is_one_line():
    with guarded_server(ConnectionLimits(max_connections=50)) as (_, port, lines):
        for _ in range(5):
            with socket.create_connection(("127.0.0.1", port)) as connection:
                connection.sendall(b"\x16\x03\x01 not http at all\r\n\r\n")
                assert closed_by_server(connection)
    assert len([line for line in lines if "Invalid HTTP request" in line]) == 1, lines

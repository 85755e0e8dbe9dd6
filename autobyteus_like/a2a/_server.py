"""The A2A server in front of a team: the SDK's JSON-RPC routes and agent card on Starlette,
served by uvicorn on one listening socket.

Loopback by default. With a bearer token every request but the agent card's must carry
``Authorization: Bearer <token>`` (compared in constant time); an address that is not
loopback is refused without one.
"""

from __future__ import annotations

import ipaddress
import secrets
import signal
import sys
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

import anyio
import anyio.abc

from autobyteus_like.a2a._card import team_card
from autobyteus_like.errors import UsageError
from autobyteus_like.serving._startup import listening_socket, stop_signals_handled
from autobyteus_like.serving._team_host import TeamHost

__all__ = ["build_a2a_app", "serve_a2a"]

_CARD_PATH = "/.well-known/agent-card.json"
Scope = MutableMapping[str, Any]
ASGI = Callable[[Scope, Any, Any], Awaitable[None]]


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _guarded(app: ASGI, token: str) -> ASGI:
    """``app`` behind a bearer token (the agent card stays public, as A2A clients read it
    first to learn how to authenticate)."""
    expected = f"Bearer {token}".encode()

    async def guard(scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope.get("path") != _CARD_PATH:
            given = dict(scope.get("headers") or []).get(b"authorization", b"")
            if not secrets.compare_digest(given, expected):
                body = b'{"error": "a bearer token is required (Authorization: Bearer ...)"}'
                await send({"type": "http.response.start", "status": 401, "headers": [
                    (b"content-type", b"application/json"),
                    (b"www-authenticate", b"Bearer")]})
                await send({"type": "http.response.body", "body": body})
                return
        await app(scope, receive, send)

    return guard


def build_a2a_app(host: TeamHost, url: str, *, token: str | None = None) -> Any:
    """The ASGI app serving ``host``'s team as an A2A agent whose JSON-RPC endpoint is
    ``url`` (the agent card names it)."""
    from a2a.server.request_handlers import DefaultRequestHandler
    from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
    from a2a.server.tasks import InMemoryTaskStore
    from starlette.applications import Starlette

    from autobyteus_like.a2a._executor import TeamExecutor

    card = team_card(host.config, url, bearer=token is not None)
    handler = DefaultRequestHandler(agent_executor=TeamExecutor(host),
                                    task_store=InMemoryTaskStore(), agent_card=card)
    app = Starlette(routes=[*create_agent_card_routes(card, card_url=_CARD_PATH),
                            *create_jsonrpc_routes(handler, rpc_url="/")])
    return app if token is None else _guarded(app, token)


def serve_a2a(host: TeamHost, *, http: tuple[str, int] = ("127.0.0.1", 0),
              token: str | None = None) -> None:
    """Start the team, serve it over A2A at ``http`` until SIGTERM, SIGINT or SIGHUP, then
    stop it. The address is printed on stderr. ``UsageError`` for an address that is not
    loopback without a ``token``, or one that cannot be listened at."""
    import uvicorn

    address, port = http
    if not _loopback(address) and not token:
        raise UsageError(f"--http {address}:{port} is not a loopback address: give a bearer "
                         "token (--token-env) so that not everyone who can reach it can "
                         "use the team")
    with stop_signals_handled() as signals:
        sock = listening_socket(address, port)
        try:
            bound = sock.getsockname()[1]
            shown = f"[{address}]" if ":" in address else address
            url = f"http://{shown}:{bound}/"
            host.start()
            web = uvicorn.Server(uvicorn.Config(build_a2a_app(host, url, token=token),
                                                log_level="warning"))

            async def run() -> None:
                async with anyio.create_task_group() as group:
                    async def on_signal(*, task_status: anyio.abc.TaskStatus[None]
                                        = anyio.TASK_STATUS_IGNORED) -> None:
                        with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT,
                                                        signal.SIGHUP) as received:
                            task_status.started()
                            async for _ in received:
                                await anyio.to_thread.run_sync(host.stop)  # asks end now
                                web.should_exit = True
                                return

                    await group.start(on_signal)
                    print(f"serving team {host.config.name!r} over A2A at {url} "
                          f"(agent card: {url.rstrip('/')}{_CARD_PATH})",
                          file=sys.stderr, flush=True)
                    web.capture_signals = _no_capture  # type: ignore[method-assign]
                    await web.serve(sockets=[sock])
                    group.cancel_scope.cancel()

            anyio.run(run)
        finally:
            signals.stopping()
            sock.close()
            host.stop()


def _no_capture() -> Any:
    """uvicorn's own signal capture, turned off: the signals are ours (it would re-raise
    them on its way out)."""
    import contextlib

    return contextlib.nullcontext()

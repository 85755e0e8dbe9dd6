"""``autobyteus-like serve``: a team on a local web server (uvicorn), until a signal.

It binds 127.0.0.1 and a free port unless told otherwise, makes a random token, and prints the
URL holding it; the team is hosted by the same ``TeamHost`` that serves a team over MCP.
"""

from __future__ import annotations

import secrets
import signal
import sys

import anyio

from autobyteus_like.serving._startup import listening_socket, stop_signals_handled
from autobyteus_like.serving._team_host import TeamHost
from autobyteus_like.web._access_guard import allowed_hosts
from autobyteus_like.web._app import build_app
from autobyteus_like.web._team import WebTeam

__all__ = ["serve_web"]


def _url(host: str, port: int, token: str) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/?token={token}"


def _announce(line: str) -> None:
    """The URL line on stdout, and on stderr too unless both are one terminal: a person sees
    it once, a program reading either stream finds it."""
    print(line, flush=True)
    if not (sys.stdout.isatty() and sys.stderr.isatty()):
        print(line, file=sys.stderr, flush=True)


async def _until_signalled(scope: anyio.CancelScope) -> None:
    with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT, signal.SIGHUP) as signals:
        async for _ in signals:
            scope.cancel()
            return


def serve_web(host: TeamHost, *, http: tuple[str, int] = ("127.0.0.1", 0),
              token: str | None = None) -> None:
    """Start the team, serve it on the web until a signal, then stop it and its MCP servers.
    The URL, with the token (a random one unless given), is printed (``_announce``)."""
    import uvicorn

    token = token or secrets.token_urlsafe(24)
    with stop_signals_handled() as signals:
        sock = listening_socket(*http)  # before the team starts: a port in use is one line
        try:
            port = sock.getsockname()[1]
            team = WebTeam(host)
            app = build_app(team, token, allowed_hosts(http[0], port))

            async def run() -> None:
                server = uvicorn.Server(uvicorn.Config(app, log_level="warning",
                                                       lifespan="off"))
                async with anyio.create_task_group() as group:
                    team.attach(group)
                    host.on_lost = group.cancel_scope.cancel  # another process took over
                    group.start_soon(_until_signalled, group.cancel_scope)
                    _announce(f"serving team {host.config.name!r} on the web at "
                              f"{_url(http[0], port, token)}")
                    if http[0] not in ("127.0.0.1", "::1", "localhost"):
                        print(f"note: listening on {http[0]}, not only on this machine: "
                              "whoever can reach it and has the URL can drive the team",
                              file=sys.stderr, flush=True)
                    try:
                        await server.serve(sockets=[sock])
                    finally:
                        team.log.close()
                    group.cancel_scope.cancel()

            host.start()
            anyio.run(run)
            if host.lost is not None:  # another process serves the session now
                raise host.lost
        finally:
            signals.stopping()
            sock.close()
            host.stop()

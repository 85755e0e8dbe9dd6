"""The proxy on uvicorn: ``ProxyServer`` (in a thread of its own: ``start()``, ``url``,
``stop()``; for tests, benchmarks and embedding) and ``serve_proxy`` (the command: until a
signal). Bound to 127.0.0.1 unless told otherwise."""

from __future__ import annotations

import asyncio
import signal
import sys
import threading
from typing import Any

from autobyteus_like.proxy._app import ProxySettings, build_proxy_app
from autobyteus_like.serving._startup import listening_socket

__all__ = ["ProxyServer", "serve_proxy"]


def _server(settings: ProxySettings) -> Any:
    import uvicorn

    class Quiet(uvicorn.Server):
        def install_signal_handlers(self) -> None:
            pass  # the caller's: a thread has none, the command listens itself

    return Quiet(uvicorn.Config(build_proxy_app(settings), log_level="warning"))


class ProxyServer:
    """The proxy serving in a thread of its own at ``url`` (``/v1`` at the end)."""

    def __init__(self, settings: ProxySettings, host: str = "127.0.0.1", port: int = 0) -> None:
        self.settings = settings
        self._sock = listening_socket(host, port)
        self.host, self.port = host, self._sock.getsockname()[1]
        self._server = _server(settings)
        self._thread = threading.Thread(target=self._serve, name="proxy-server")
        self._failure: BaseException | None = None

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    def _serve(self) -> None:
        try:
            asyncio.run(self._server.serve(sockets=[self._sock]))
        except BaseException as exc:  # reported by start() or stop()
            self._failure = exc

    def start(self) -> ProxyServer:
        self._thread.start()
        while not self._server.started and self._thread.is_alive():
            self._thread.join(0.01)  # uvicorn says started by a flag, not an event
        if not self._server.started:
            raise RuntimeError(f"the proxy did not start: {self._failure}")
        return self

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join()
        self._sock.close()

    def __enter__(self) -> ProxyServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def serve_proxy(settings: ProxySettings, host: str = "127.0.0.1", port: int = 8000) -> None:
    """Serve until SIGINT, SIGTERM or SIGHUP."""
    sock = listening_socket(host, port)
    server = _server(settings)
    try:
        port = sock.getsockname()[1]
        print(f"proxy for {settings.upstream} (tools in the {settings.tool_format} format) at "
              f"http://{host}:{port}/v1", flush=True)
        if host not in ("127.0.0.1", "::1", "localhost"):
            print(f"note: listening on {host}, not only on this machine"
                  + ("" if settings.token else ": set a token (--token-env)"),
                  file=sys.stderr, flush=True)

        async def run() -> None:
            loop = asyncio.get_running_loop()
            for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
                loop.add_signal_handler(signum, lambda: setattr(server, "should_exit", True))
            await server.serve(sockets=[sock])

        asyncio.run(run())
    finally:
        sock.close()

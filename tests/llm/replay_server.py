"""A real HTTP server on 127.0.0.1 that answers each POST with the next reply: an SSE stream
of JSON chunks (ending ``data: [DONE]``), an error status with a JSON body, recorded bytes
served exactly as recorded, or no answer at all. The official SDK is pointed at it with
``base_url``; nothing of ours is mocked."""

from __future__ import annotations

import json
import ssl
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).parent.parent / "fixtures"


def fixture(name: str) -> list[dict[str, Any]]:
    """A recorded stream: the list of chunks of ``fixtures/<name>.json``."""
    chunks: list[dict[str, Any]] = json.loads((FIXTURES / f"{name}.json").read_text())
    return chunks


@dataclass
class Stream:
    """Reply with these chunks as server-sent events. ``named`` gives each an ``event:``
    line from its ``type`` (Anthropic's framing); ``done`` ends with ``data: [DONE]``
    (OpenAI's)."""

    chunks: list[dict[str, Any]]
    named: bool = False
    done: bool = True
    stall: threading.Event | None = None
    """If given: after the chunks, hold the connection open until it is set."""


@dataclass
class Failure:
    """Reply with an HTTP error."""

    status: int
    body: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Recorded:
    """Reply with these bytes as they are, with the recorded status and content type (and
    content encoding, for a gzip body)."""

    body: bytes
    status: int = 200
    content_type: str = "text/event-stream"
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Hang:
    """Read the request, then send nothing (no status line, no headers) until the server
    closes: a provider that accepted the request and never answers."""


class ReplayServer:
    """``with ReplayServer([...]) as server:`` then ``server.base_url``; ``server.requests``
    holds every request body received, in order."""

    def __init__(self, replies: list[Stream | Failure | Recorded | Hang],
                 tls: ssl.SSLContext | None = None) -> None:
        self.replies = list(replies)
        self.requests: list[dict[str, Any]] = []
        self.paths: list[str] = []
        self.headers: list[dict[str, str]] = []
        self.arrived = threading.Semaphore(0)
        """Released once per request received: ``arrived.acquire(timeout=...)`` waits for one."""
        self._closing = threading.Event()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                outer.requests.append(json.loads(self.rfile.read(length) or b"{}"))
                outer.paths.append(self.path)
                outer.headers.append({k.lower(): v for k, v in self.headers.items()})
                reply = outer.replies.pop(0) if outer.replies else Failure(
                    500, {"error": {"message": "no reply left in the test script"}})
                self.close_connection = True
                outer.arrived.release()
                if isinstance(reply, Hang):
                    outer._closing.wait()
                    return
                if isinstance(reply, Recorded):
                    self.send_response(reply.status)
                    for key, value in {"Content-Type": reply.content_type, **reply.headers,
                                       "Content-Length": str(len(reply.body)),
                                       "Connection": "close"}.items():
                        self.send_header(key, value)
                    self.end_headers()
                    self.wfile.write(reply.body)
                    return
                if isinstance(reply, Failure):
                    body = json.dumps(reply.body).encode()
                    self.send_response(reply.status)
                    for key, value in {"Content-Type": "application/json", **reply.headers,
                                       "Content-Length": str(len(body)),
                                       "Connection": "close"}.items():
                        self.send_header(key, value)
                    self.end_headers()
                    self.wfile.write(body)
                    return
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Connection", "close")
                self.end_headers()
                for chunk in reply.chunks:
                    event = f"event: {chunk['type']}\n" if reply.named else ""
                    self.wfile.write(f"{event}data: {json.dumps(chunk)}\n\n".encode())
                    self.wfile.flush()
                if reply.stall is not None:
                    reply.stall.wait(30)
                    return
                if reply.done:
                    self.wfile.write(b"data: [DONE]\n\n")
                    self.wfile.flush()

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = False  # so server_close() joins every handler thread
        if tls is not None:  # serve https (the handshake happens on accept)
            self._server.socket = tls.wrap_socket(self._server.socket, server_side=True)
        self._scheme = "https" if tls is not None else "http"
        # a short poll interval: shutdown() waits for the serving loop to look up
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.02,),
                                        name="replay-server")

    @property
    def base_url(self) -> str:
        """Where the SDK should send its requests."""
        return f"{self._scheme}://127.0.0.1:{self._server.server_address[1]}/v1"

    def __enter__(self) -> ReplayServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._closing.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()

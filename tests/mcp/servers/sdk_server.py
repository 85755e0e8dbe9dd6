"""A test MCP server written with the official SDK (``MCPServer``), run as a subprocess.

``python sdk_server.py stdio`` speaks over stdin/stdout; ``python sdk_server.py http`` (or
``json``: replies as JSON bodies; or ``sse``) listens on 127.0.0.1 on a free port and prints
``PORT <n>`` as its first line.
Its tools cover what a client must handle: text, structured content, images, embedded
resources, errors, slow calls (it records the cancellation it receives), a crash mid-call, huge
results, a tool list that changes, and processes it leaves behind.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import TypedDict

import anyio
from mcp.server.mcpserver import Context, Image, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import EmbeddedResource, TextResourceContents

server = MCPServer("fixture", log_level="WARNING")

# A 1x1 PNG.
PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c63f8cfc0f01f0005000201a5d3ef6d0000000049454e44ae426082"
)


class Weather(TypedDict):
    city: str
    celsius: float


@server.tool()
def echo(text: str) -> str:
    """Return the text unchanged."""
    return text


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@server.tool()
def tally(numbers: list[int]) -> int:
    """Sum a list of integers."""
    return sum(numbers)


@server.tool()
def header(name: str, ctx: Context) -> str:
    """The value of an HTTP request header (HTTP transports only)."""
    return str((ctx.headers or {}).get(name.lower()))


@server.tool()
def meta_key(ctx: Context) -> str:
    """The idempotency key the request's ``_meta`` carried ('none' without one)."""
    meta = ctx.request_context.meta or {}
    return str(meta.get("autobyteus-like/idempotency-key", "none"))


@server.tool()
def weather(city: str) -> Weather:
    """Structured weather for a city."""
    return {"city": city, "celsius": 21.5}


@server.tool()
def picture() -> Image:
    """A tiny PNG image."""
    return Image(data=PNG, format="png")


@server.tool()
def document() -> list[object]:
    """Text plus an embedded text resource."""
    resource = EmbeddedResource(type="resource", resource=TextResourceContents(
        uri="file:///notes.txt", mime_type="text/plain", text="the notes"))
    return ["see the notes", resource]


@server.tool()
def fail(message: str) -> str:
    """Always fails with the message (an isError result)."""
    raise ToolError(message)


@server.tool()
async def slow(seconds: float, marker: str) -> str:
    """Sleep; writes 'started' to the marker file, then 'cancelled' if the call is cancelled."""
    Path(marker).write_text("started")
    try:
        await anyio.sleep(seconds)
    except anyio.get_cancelled_exc_class():
        Path(marker).write_text("cancelled")
        raise
    return "slept"


@server.tool()
def crash() -> str:
    """Exit the whole server process in the middle of the call."""
    os._exit(3)


@server.tool()
def huge(size: int) -> str:
    """A text result of ``size`` characters."""
    return "x" * size


@server.tool()
def environment(name: str) -> str:
    """The value of an environment variable, and the working directory."""
    return f"{os.environ.get(name)!r} in {os.getcwd()}"


@server.tool()
def spawn() -> list[int]:
    """Start a child and a detached (setsid) grandchild that would outlive the server."""
    child = subprocess.Popen(["sleep", "300"])
    daemon = subprocess.Popen(["setsid", "sleep", "301"])
    return [child.pid, daemon.pid]


async def late(word: str) -> str:
    """A tool that appears only after 'grow' is called."""
    return word.upper()


@server.tool()
async def grow(ctx: Context) -> str:
    """Add the tool 'late' and announce that the tool list changed."""
    server.add_tool(late)
    await ctx.notify_tools_changed()  # subscriptions/listen (2026-07-28 connections)
    await ctx.session.send_tool_list_changed()  # handshake-era connections
    return "grown"


def _serve_http(kind: str) -> None:
    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)  # connections queue from now on, so clients may connect at once
    print(f"PORT {sock.getsockname()[1]}", flush=True)
    app = server.sse_app() if kind == "sse" else server.streamable_http_app(
        json_response=kind == "json")  # json: each reply one JSON body, not an event stream
    config = uvicorn.Config(app, log_level="warning")
    anyio.run(lambda: uvicorn.Server(config).serve(sockets=[sock]))


if __name__ == "__main__":
    mode = sys.argv[1] if len(sys.argv) > 1 else "stdio"
    if mode == "stdio":
        server.run("stdio")
    else:
        _serve_http(mode)

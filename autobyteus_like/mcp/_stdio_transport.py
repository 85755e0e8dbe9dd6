"""The stdio transport, with a byte cap on each message read from the server before it is parsed.

The SDK's own transport joins a line's chunks by string concatenation and parses whatever
arrives: a 50 MB result kept the toolset's thread busy past any timeout (the time grew with the
square of the size). Here the server's stdout is read as bytes into one buffer (linear), and a
line longer than ``max_bytes`` is skipped as it streams in, never held or parsed; its request
gets an error saying how big the message was, so the call ends at once with a clear result.
Otherwise the behaviour is the SDK's: one JSON-RPC message a line, a line that does not parse
is passed to the session as an exception, and stopping closes stdin, waits, then kills the
server's process group.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, TextIO

import anyio
import anyio.abc
import mcp_types as types
from mcp import StdioServerParameters
from mcp.client.stdio import get_default_environment
from mcp.os.posix.utilities import terminate_posix_process_tree
from mcp.shared.message import SessionMessage

from autobyteus_like.mcp._message_cap import HEAD_BYTES, id_in, too_large_error, too_large_text

__all__ = ["capped_stdio_client"]

_READ = 1 << 16
_GRACE_S = 2.0
_CLOSED = (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError, OSError)


def _parsed(line: bytes) -> SessionMessage | Exception:
    try:
        return SessionMessage(types.jsonrpc_message_adapter.validate_json(line, by_name=False))
    except ValueError as exc:
        return exc


def _too_large(head: bytes, size: int, cap: int) -> SessionMessage | Exception:
    """The error answer to the request whose answer was ``size`` bytes (its id is read from the
    start of the line); an exception for the session when no id can be found."""
    request_id = id_in(head)
    if request_id is None:
        return ValueError(too_large_text(size, cap))
    return SessionMessage(too_large_error(request_id, size, cap))


@asynccontextmanager
async def capped_stdio_client(server: StdioServerParameters, errlog: TextIO,
                              max_bytes: int) -> AsyncIterator[tuple[Any, Any]]:
    """Start the server and yield the (read, write) streams the SDK's ``Client`` takes."""
    process = await anyio.open_process(
        [server.command, *server.args], env=get_default_environment() | (server.env or {}),
        stderr=errlog, cwd=server.cwd, start_new_session=True)
    read_writer, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, write_reader = anyio.create_memory_object_stream[SessionMessage](0)

    async def read() -> None:
        assert process.stdout is not None
        buffer = bytearray()
        skipped = 0  # bytes of an oversized line skipped so far (0: not skipping)
        head = b""
        async with read_writer:
            while True:
                try:
                    chunk = await process.stdout.receive(_READ)
                except _CLOSED:
                    return
                start = 0
                while True:
                    newline = chunk.find(b"\n", start)
                    piece = chunk[start:] if newline < 0 else chunk[start:newline]
                    if skipped:
                        skipped += len(piece)
                    else:
                        buffer += piece
                        if len(buffer) > max_bytes:
                            head, skipped = bytes(buffer[:HEAD_BYTES]), len(buffer)
                            buffer.clear()
                    if newline < 0:
                        break
                    start = newline + 1
                    item: SessionMessage | Exception | None = None
                    if skipped:
                        item, skipped = _too_large(head, skipped, max_bytes), 0
                    elif buffer.strip():
                        item = _parsed(bytes(buffer))
                    buffer.clear()
                    if item is not None:
                        try:
                            await read_writer.send(item)
                        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                            return

    async def write() -> None:
        assert process.stdin is not None
        with contextlib.suppress(*_CLOSED):
            async with write_reader:
                async for message in write_reader:
                    data = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                    await process.stdin.send((data + "\n").encode())

    async with anyio.create_task_group() as group:
        group.start_soon(read)
        group.start_soon(write)
        try:
            yield read_stream, write_stream
        finally:
            with anyio.CancelScope(shield=True):
                await _stop(process, read_stream, write_stream)
            group.cancel_scope.cancel()


async def _stop(process: anyio.abc.Process, *streams: Any) -> None:
    """Close stdin, give the server a moment to exit, then kill its process group."""
    for stream in streams:
        with contextlib.suppress(*_CLOSED):
            await stream.aclose()
    if process.stdin is not None:
        with contextlib.suppress(*_CLOSED):
            await process.stdin.aclose()
    with anyio.move_on_after(_GRACE_S):
        while process.returncode is None:
            await anyio.sleep(0.01)
    if process.returncode is None:
        with contextlib.suppress(ProcessLookupError, OSError):
            await terminate_posix_process_tree(process, _GRACE_S)
    if process.stdout is not None:
        with contextlib.suppress(*_CLOSED):
            await process.stdout.aclose()

"""StderrTail: a stdio server's stderr, kept as its last few kilobytes.

The SDK hands ``errlog`` to the server as its stderr. A file would grow without bound under a
chatty server, and our own stderr would mix every server's noise into the user's terminal. So
the server writes into a pipe that the toolset's loop drains as data arrives: the last
``keep`` bytes are kept to say why a server failed ("its last words on stderr: ..."), the rest
goes to the debug log (silent unless the user enables ``autobyteus_like`` logging).
"""

from __future__ import annotations

import asyncio
import os
from typing import TextIO

from loguru import logger

__all__ = ["StderrTail"]


class StderrTail:
    """A pipe whose write end is the server's stderr; read on ``loop``."""

    def __init__(self, loop: asyncio.AbstractEventLoop, server: str, keep: int = 8192) -> None:
        self._loop = loop
        self._server = server
        self._keep = keep
        self._tail = b""
        read_fd, write_fd = os.pipe()
        os.set_blocking(read_fd, False)
        self._read_fd: int | None = read_fd
        self.errlog: TextIO = os.fdopen(write_fd, "w")
        """Given to the SDK, which passes it to the server as stderr."""
        loop.add_reader(read_fd, self._drain)

    def _drain(self) -> None:
        if self._read_fd is None:
            return
        try:
            data = os.read(self._read_fd, 65536)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:  # every writer has closed it: the server and its children are gone
            self._loop.remove_reader(self._read_fd)
            return
        logger.debug("mcp server {} stderr: {}", self._server,
                     data.decode("utf-8", "replace").rstrip())
        self._tail = (self._tail + data)[-self._keep:]

    def spawned(self) -> None:
        """The server has its copy of the write end; ours is closed so the pipe ends with it."""
        if not self.errlog.closed:
            self.errlog.close()

    def last_words(self, lines: int = 3, limit: int = 300) -> str:
        """The last non-empty lines the server wrote, on one line, at most ``limit`` long."""
        self._drain()
        text = self._tail.decode("utf-8", "replace")
        kept = [line.strip() for line in text.splitlines() if line.strip()][-lines:]
        joined = " | ".join(kept)
        return joined if len(joined) <= limit else "..." + joined[-(limit - 3):]

    def close(self) -> None:
        """Stop reading and close both ends."""
        self.spawned()
        if self._read_fd is not None:
            self._loop.remove_reader(self._read_fd)
            os.close(self._read_fd)
            self._read_fd = None

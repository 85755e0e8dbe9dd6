"""ToolsetSession: one started period of a toolset, from its first user's ``acquire`` to its last
``release``.

It owns the loop thread and the connection. Calls arrive from any thread as coroutines on that
loop. A connection that has gone (the server exited, the HTTP server hung up) is replaced on the
next call, under a lock so that concurrent calls share one restart; the call that saw it go
fails with a "not available" result. A ``tools/list_changed`` from the server re-lists the tools
(coalesced: one listing in flight at a time) and hands the new listing to the toolset.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

from loguru import logger
from mcp.shared.exceptions import MCPError

from autobyteus_like.errors import ConfigError, ToolFailure
from autobyteus_like.mcp._catalogue import resource_text
from autobyteus_like.mcp._connection import ServerCallbacks, ServerConnection, start_failure
from autobyteus_like.mcp._failures import call_failure, why
from autobyteus_like.mcp._loop_thread import LoopThread
from autobyteus_like.mcp._resource_tool import add_resource_tool
from autobyteus_like.mcp._results import result_content
from autobyteus_like.mcp._server_config import MCPServerConfig
from autobyteus_like.mcp._tool_definitions import CallFactory, Listing, build_listing
from autobyteus_like.tools._invocation import ErrorCode

__all__ = ["ToolsetSession"]

_STOP_TIMEOUT_S = 15.0


def _reason(failure: ConfigError) -> str:
    return failure.problems[0] if failure.problems else str(failure)


def _refused_over_streamable_http(failure: ConfigError) -> bool:
    """Whether the server answered the streamable-HTTP handshake with an HTTP error (so it may
    speak only the older SSE transport), rather than not answering at all."""
    cause: BaseException | None = failure.__cause__
    while isinstance(cause, BaseExceptionGroup) and cause.exceptions:
        cause = cause.exceptions[0]
    return isinstance(cause, MCPError)


async def _read(connection: ServerConnection, uri: str, max_chars: int) -> str:
    return resource_text(await connection.read_resource(uri), max_chars)


class ToolsetSession:
    """The loop thread, the live connection and the current listing of one server."""

    def __init__(self, name: str, config: MCPServerConfig, make_call: CallFactory,
                 on_listing: Callable[[Listing], None],
                 callbacks: ServerCallbacks | None = None) -> None:
        self.name = name
        self.config = config
        self._callbacks = callbacks
        self._make_call = make_call
        self._on_listing = on_listing
        self.thread = LoopThread(f"mcp-{name}")
        self._connection: ServerConnection | None = None
        self._reconnecting: asyncio.Lock | None = None
        self._listing: Listing | None = None
        self._refreshing = False
        self._refresh_again = False
        self._closing = False
        self._tasks: set[asyncio.Task[None]] = set()
        self._resources: list[Any] = []

    # -- from any thread -----------------------------------------------------------------------

    def start(self) -> Future[None]:
        """Start the server and list its tools; the future fails with a ``ConfigError`` whose
        one problem says why."""
        return self.thread.submit(self._open())

    async def call(self, remote: str, local: str, arguments: dict[str, Any],
                   meta: dict[str, Any] | None = None) -> Any:
        """Call the tool the server names ``remote`` from a coroutine on any loop (``meta``:
        the request's ``_meta``): what the LLM is shown, or ``ToolFailure``. Cancelling the
        caller sends the server an MCP cancellation; ``RuntimeError`` if the session has
        stopped."""
        return await self.thread.run(lambda: self._call(remote, local, arguments, meta))

    async def request(self, what: str, work: Callable[[ServerConnection], Any]) -> Any:
        """``await work(connection)`` on the live connection, from a coroutine on any loop
        (``what`` names it in a failure): its result, or ``ToolFailure``."""
        return await self.thread.run(lambda: self._guarded(what, work))

    def ask(self, what: str, work: Callable[[ServerConnection], Any]) -> Any:
        """``request`` from synchronous code, waiting at most the call timeout."""
        timeout = (self.config.timeout_s or 60.0) + self.config.startup_timeout_s
        return self.thread.submit(self._guarded(what, work)).result(timeout)

    async def _guarded(self, what: str, work: Callable[[ServerConnection], Any]) -> Any:
        connection = await self._live_connection()
        try:
            return await work(connection)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            failure, gone = call_failure(exc, what, self.name, connection.last_words(),
                                         remote=self.config.kind == "http")
            if gone:
                await connection.close()
            raise failure from None

    def stop(self) -> None:
        """Close the connection (the server and every process it started end) and join the
        loop thread."""
        try:
            self.thread.submit(self._close()).result(_STOP_TIMEOUT_S)
        except Exception as exc:  # the loop is stopped below whatever closing did
            logger.debug("mcp server {}: closing raised {!r}", self.name, exc)
        finally:
            self.thread.stop()

    # -- on the loop ---------------------------------------------------------------------------

    async def _open(self) -> None:
        self._reconnecting = asyncio.Lock()
        await self._connect()

    async def _open_connection(self) -> ServerConnection:
        config = self.config
        transport = "streamable-http" if config.kind == "http" and config.transport == "auto" \
            else None
        connection = ServerConnection(self.name, config, self._tools_changed, transport,
                                      self._callbacks)
        try:
            await connection.open()
        except ConfigError as failure:
            if transport is None or not _refused_over_streamable_http(failure):
                raise
            logger.debug("mcp server {}: streamable HTTP refused ({}); trying SSE", self.name,
                         _reason(failure))
            connection = ServerConnection(self.name, config, self._tools_changed, "sse",
                                          self._callbacks)
            try:
                await connection.open()
            except ConfigError as second:
                raise start_failure(self.name, f"{_reason(failure)}; over SSE: "
                                               f"{_reason(second)}") from second
        return connection

    async def _connect(self) -> None:
        connection = await self._open_connection()
        try:
            tools = await asyncio.wait_for(connection.list_tools(),
                                           self.config.startup_timeout_s)
        except BaseException as exc:
            await connection.close()
            if isinstance(exc, asyncio.CancelledError):
                raise
            raise start_failure(self.name, f"listing its tools failed: {why(exc)}") from exc
        self._connection = connection
        if self.config.resources_tool:
            self._resources = await self._listed_resources(connection)
        self._install(tools)

    async def _listed_resources(self, connection: ServerConnection) -> list[Any]:
        if not getattr(connection.capabilities, "resources", None):
            return []
        try:
            return await asyncio.wait_for(connection.list_resources(),
                                          self.config.startup_timeout_s)
        except Exception as exc:  # the tool still reads any URI; only its description is poorer
            logger.debug("mcp server {}: listing resources failed: {!r}", self.name, exc)
            return []

    def _install(self, tools: list[Any]) -> None:
        listing = build_listing(self.name, self.config, tools, self._make_call, self._listing,
                                call_soon=self.thread.post)
        if self.config.resources_tool:
            add_resource_tool(listing, self.name, self._resources, self._read_for_tool,
                              self.thread.post)
        self._listing = listing
        self._on_listing(listing)

    async def _live_connection(self) -> ServerConnection:
        connection = self._connection
        if connection is not None and connection.alive:
            return connection
        assert self._reconnecting is not None
        async with self._reconnecting:
            connection = self._connection
            if connection is not None and connection.alive:
                return connection
            if self._closing:
                raise ToolFailure(ErrorCode.NOT_AVAILABLE, f"MCP server {self.name!r} is stopping",
                                  suggestion="do without this tool")
            if connection is not None:
                await connection.close()
            self._connection = None
            try:
                await self._connect()
            except ConfigError as exc:
                raise ToolFailure(
                    ErrorCode.NOT_AVAILABLE,
                    f"MCP server {self.name!r} is not available: it could not be "
                    f"{'reached' if self.config.kind == 'http' else 'restarted'}: "
                    f"{_reason(exc)}", suggestion="do without this tool for now") from None
            assert self._connection is not None
            return self._connection

    async def _call(self, remote: str, local: str, arguments: dict[str, Any],
                    meta: dict[str, Any] | None = None) -> Any:
        connection = await self._live_connection()
        try:
            result = await connection.call(remote, arguments, meta)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            failure, gone = call_failure(exc, local, self.name, connection.last_words(),
                                         remote=self.config.kind == "http")
            if gone:
                await connection.close()  # the next call starts the server again
            raise failure from None
        return result_content(result, local, self.config.max_result_chars)

    async def _read_for_tool(self, arguments: dict[str, Any]) -> Any:
        uri = str(arguments["uri"])
        what = f"{self.name}.read_resource"
        return await self.thread.run(lambda: self._guarded(
            what, lambda c: _read(c, uri, self.config.max_result_chars)))

    def _tools_changed(self) -> None:
        """The server said its tools changed: list them again (once, however many times it
        says so while a listing is in flight)."""
        if self._refreshing:
            self._refresh_again = True
            return
        self._refreshing = True
        task = asyncio.ensure_future(self._relist())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _relist(self) -> None:
        try:
            while True:
                self._refresh_again = False
                connection = self._connection
                if connection is None or not connection.alive or self._closing:
                    return
                try:
                    tools = await asyncio.wait_for(connection.list_tools(),
                                                   self.config.startup_timeout_s)
                except Exception as exc:  # the old listing stays; the next change tries again
                    logger.debug("mcp server {}: re-listing tools failed: {!r}", self.name, exc)
                    return
                self._install(tools)
                if not self._refresh_again:
                    return
        finally:
            self._refreshing = False

    async def _close(self) -> None:
        self._closing = True
        for task in list(self._tasks):
            task.cancel()
        connection, self._connection = self._connection, None
        if connection is not None:
            await connection.close()

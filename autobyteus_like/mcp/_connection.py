"""ServerConnection: one live session with one MCP server, through the official SDK's ``Client``.

Everything here runs on the toolset's loop thread. anyio requires a task group to be left by
the task that entered it, so one *owner task* enters the ``Client`` (transport, handshake) and
holds it open until the connection is closed or the server goes; calls are made from other
tasks on the same loop. A stdio server gets a marker in its environment, and when the owner
task has left the ``Client`` (the SDK's own shutdown: stdin closed, then signals) every process
still carrying it is killed. A server that announces tool-list changes is listened to in both
protocol eras: notifications on handshake-era connections, ``subscriptions/listen`` on
2026-07-28 ones (whose events reach the same message handler).
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from functools import partial
from typing import Any

import anyio
from loguru import logger
from mcp import Client, StdioServerParameters
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp_types import CONNECTION_CLOSED, Implementation
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from autobyteus_like.errors import ConfigError
from autobyteus_like.mcp._failures import why
from autobyteus_like.mcp._http_transport import SDK_SSE_EVENT_BYTES, capped_http_client
from autobyteus_like.mcp._process_sweep import MARKER, kill_marked, new_token
from autobyteus_like.mcp._server_config import MCPServerConfig
from autobyteus_like.mcp._stderr_tail import StderrTail
from autobyteus_like.mcp._stdio_transport import capped_stdio_client
from autobyteus_like.mcp._stream_watch import WatchedReceiveStream

__all__ = ["MAX_TOOLS", "ServerCallbacks", "ServerConnection", "start_failure"]

MAX_TOOLS = 1_000
"""Tools taken from one server (a listing that pages on forever stops here)."""
_MAX_PAGES = 100
_CLIENT_INFO = Implementation(name="autobyteus-like", version="0.1")
_TOOLS_CHANGED = "notifications/tools/list_changed"
_RESOURCE_UPDATED = "notifications/resources/updated"


@dataclass(frozen=True)
class ServerCallbacks:
    """What the session answers for the server: its ``elicitation/create`` and
    ``sampling/createMessage`` requests (None: the SDK's default, which refuses), and its
    resource-update notifications."""

    elicitation: Any = None
    sampling: Any = None
    resource_updated: Callable[[str], None] | None = None


def start_failure(server: str, reason: str) -> ConfigError:
    """The error for a server that could not be started or reached: ``reason`` on one line,
    in ``problems[0]``."""
    return ConfigError(f"mcp server {server!r}", [reason])


class ServerConnection:
    """A session with the server ``name``; ``open`` it, ``call`` its tools, ``close`` it."""

    def __init__(self, name: str, config: MCPServerConfig,
                 on_tools_changed: Callable[[], None], transport: str | None = None,
                 callbacks: ServerCallbacks | None = None) -> None:
        self.name = name
        self.config = config
        self._on_tools_changed = on_tools_changed
        self._callbacks = callbacks or ServerCallbacks()
        self._transport = transport or config.transport
        self._client: Client | None = None
        self._over = anyio.Event()
        """Set when the session is over: closed by us, or the server went."""
        self._owner: asyncio.Task[None] | None = None
        self._stderr: StderrTail | None = None
        self._token = new_token()
        self._listeners: set[asyncio.Task[None]] = set()

    # -- life cycle ----------------------------------------------------------------------------

    async def open(self) -> None:
        """Start (or reach) the server and finish the handshake; ``ConfigError`` (see
        ``start_failure``) if not."""
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._owner = asyncio.create_task(self._own(ready), name=f"mcp-{self.name}")
        try:
            await ready
        except BaseException:
            await self.close()
            raise

    @property
    def alive(self) -> bool:
        """Whether calls can be made (open, and the server has not gone)."""
        return self._client is not None and not self._over.is_set()

    def last_words(self) -> str:
        """The end of what a stdio server wrote to stderr ('' for HTTP servers)."""
        return self._stderr.last_words() if self._stderr is not None else ""

    async def close(self) -> None:
        """End the session, stop the server and everything it started."""
        self._over.set()
        owner = self._owner
        if owner is not None and owner is not asyncio.current_task():
            await asyncio.gather(owner, return_exceptions=True)

    def _transport_cm(self) -> AbstractAsyncContextManager[Any]:
        config = self.config
        if config.kind == "stdio":
            assert config.command is not None
            loop = asyncio.get_running_loop()
            self._stderr = StderrTail(loop, self.name)
            params = StdioServerParameters(command=config.command, args=list(config.args),
                                           env={**config.env, MARKER: self._token},
                                           cwd=config.cwd)
            return capped_stdio_client(params, self._stderr.errlog, config.max_message_bytes)
        assert config.url is not None
        if self._transport == "sse":
            cap = min(config.max_message_bytes, SDK_SSE_EVENT_BYTES)
            return sse_client(config.url, headers=dict(config.headers) or None,
                              httpx_client_factory=partial(capped_http_client, cap))
        return _streamable_http(config.url, dict(config.headers), config.max_message_bytes)

    @asynccontextmanager
    async def _watched(self) -> AsyncIterator[Any]:
        async with self._transport_cm() as (read, write):
            if self._stderr is not None:
                self._stderr.spawned()
            yield WatchedReceiveStream(read, self._over), write

    async def _own(self, ready: asyncio.Future[None]) -> None:
        """Enter the Client, report readiness, hold it until the session is over, leave it."""
        timeout = self.config.startup_timeout_s
        deadline = anyio.CancelScope(deadline=anyio.current_time() + timeout)
        try:
            with deadline:
                async with AsyncExitStack() as stack:
                    client = Client(self._watched(), message_handler=self._on_message,
                                    client_info=_CLIENT_INFO, cache=None,
                                    elicitation_callback=self._callbacks.elicitation,
                                    sampling_callback=self._callbacks.sampling)
                    await stack.enter_async_context(client)
                    await self._listen_if_announced(client, stack)
                    self._client = client
                    deadline.deadline = math.inf
                    ready.set_result(None)
                    await self._over.wait()
                    for listener in list(self._listeners):  # left inside the Client
                        listener.cancel()
                    await asyncio.gather(*self._listeners, return_exceptions=True)
            if deadline.cancelled_caught and not ready.done():
                words = self.last_words()
                raise start_failure(self.name, f"no answer within {timeout:g} s" +
                                    (f"; its last words on stderr: {words}" if words else ""))
        except BaseException as exc:
            if not ready.done():
                failure = exc if isinstance(exc, ConfigError) else start_failure(
                    self.name, self._why(exc))
                if failure is not exc:
                    failure.__cause__ = exc
                ready.set_exception(failure)
            elif not isinstance(exc, asyncio.CancelledError):
                logger.debug("mcp server {}: the session ended with {!r}", self.name, exc)
            if isinstance(exc, asyncio.CancelledError):
                raise
        finally:
            self._client = None
            self._over.set()
            if self._stderr is not None:
                self._stderr.close()
            if self.config.kind == "stdio":
                kill_marked(self._token)

    def _why(self, exc: BaseException) -> str:
        reason = why(exc)
        words = self.last_words()
        return f"{reason}; its last words on stderr: {words}" if words else reason

    async def _listen_if_announced(self, client: Client, stack: AsyncExitStack) -> None:
        """On a 2026-07-28 connection, tool-list changes come only to ``subscriptions/listen``
        streams: keep one open for the session if the server announces such changes."""
        tools = client.server_capabilities.tools
        if client.protocol_version not in MODERN_PROTOCOL_VERSIONS or not (
                tools and tools.list_changed):
            return
        group = await stack.enter_async_context(anyio.create_task_group())
        stack.callback(group.cancel_scope.cancel)  # runs first: the listener never ends itself

        async def listen() -> None:
            try:
                async with client.listen(tools_list_changed=True) as subscription:
                    async for _ in subscription:  # the message handler sees each event too
                        pass
            except Exception as exc:  # no listening is no refresh, never a broken session
                logger.debug("mcp server {}: subscriptions/listen ended: {!r}", self.name, exc)

        group.start_soon(listen)

    async def _on_message(self, message: Any) -> None:
        if isinstance(message, Exception):  # a line that is not JSON-RPC, a transport hiccup
            logger.debug("mcp server {}: {!r}", self.name, message)
        elif getattr(message, "method", None) == _TOOLS_CHANGED:
            self._on_tools_changed()
        elif getattr(message, "method", None) == _RESOURCE_UPDATED:
            uri = getattr(getattr(message, "params", None), "uri", None)
            if uri is not None and self._callbacks.resource_updated is not None:
                self._callbacks.resource_updated(str(uri))

    # -- requests ------------------------------------------------------------------------------

    def _live_client(self) -> Client:
        client = self._client
        if client is None or self._over.is_set():
            raise MCPError(CONNECTION_CLOSED, "Connection closed")
        return client

    async def list_tools(self) -> list[Any]:
        """Every tool the server lists (all pages, at most ``MAX_TOOLS``)."""
        client = self._live_client()
        tools: list[Any] = []
        cursor: str | None = None
        for _ in range(_MAX_PAGES):
            page = await client.list_tools(cursor=cursor)
            tools.extend(page.tools)
            cursor = page.next_cursor
            if not cursor or len(tools) >= MAX_TOOLS:
                break
        return tools[:MAX_TOOLS]

    async def list_prompts(self) -> list[Any]:
        """Every prompt the server lists (all pages, at most ``MAX_TOOLS``)."""
        return await self._pages(lambda client, cursor: client.list_prompts(cursor=cursor),
                                 "prompts")

    async def list_resources(self) -> list[Any]:
        """Every resource the server lists (all pages, at most ``MAX_TOOLS``)."""
        return await self._pages(lambda client, cursor: client.list_resources(cursor=cursor),
                                 "resources")

    async def _pages(self, page_of: Callable[[Client, str | None], Any], field: str
                     ) -> list[Any]:
        client = self._live_client()
        items: list[Any] = []
        cursor: str | None = None
        for _ in range(_MAX_PAGES):
            page = await page_of(client, cursor)
            items.extend(getattr(page, field))
            cursor = page.next_cursor
            if not cursor or len(items) >= MAX_TOOLS:
                break
        return items[:MAX_TOOLS]

    async def get_prompt(self, name: str, arguments: dict[str, str]) -> Any:
        """The SDK's ``GetPromptResult`` for the prompt ``name``."""
        return await self._live_client().get_prompt(name, arguments or None)

    async def read_resource(self, uri: str) -> Any:
        """The SDK's ``ReadResourceResult`` for ``uri``."""
        return await self._live_client().read_resource(uri)

    async def subscribe(self, uri: str) -> None:
        """Ask the server to announce changes of ``uri``: ``resources/subscribe`` on a
        handshake-era connection, a ``subscriptions/listen`` stream of its own on a 2026-07-28
        one (held until the session ends; its events reach the message handler)."""
        client = self._live_client()
        if client.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            await client.subscribe_resource(uri)
            return
        acknowledged: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        async def listen() -> None:
            try:
                async with client.listen(resource_subscriptions=[uri]) as subscription:
                    acknowledged.set_result(None)
                    async for _ in subscription:  # the message handler sees each event
                        pass
            except Exception as exc:
                if not acknowledged.done():
                    acknowledged.set_exception(exc)
                logger.debug("mcp server {}: listening to {} ended: {!r}", self.name, uri, exc)

        task = asyncio.create_task(listen(), name=f"mcp-{self.name}-listen")
        self._listeners.add(task)
        task.add_done_callback(self._listeners.discard)
        await acknowledged

    @property
    def capabilities(self) -> Any:
        """What the server said it offers (the SDK's ``ServerCapabilities``)."""
        return self._live_client().server_capabilities

    async def call(self, name: str, arguments: dict[str, Any],
                   meta: dict[str, Any] | None = None) -> Any:
        """Call a tool by the server's name for it, with ``meta`` as the request's ``_meta``;
        the SDK's ``CallToolResult``. Cancelling the awaiting task sends the server an MCP
        cancellation."""
        return await self._live_client().call_tool(name, arguments,
                                                    meta=meta)  # type: ignore[arg-type]


@asynccontextmanager
async def _streamable_http(url: str, headers: dict[str, str], cap: int) -> AsyncIterator[Any]:
    # The SDK's own bound on an event is lifted: the capped client keeps every message under
    # ``cap`` and answers an oversized one itself.
    async with capped_http_client(cap, headers=headers or None) as http, \
            streamable_http_client(url, http_client=http, max_sse_event_size=None) as streams:
        yield streams

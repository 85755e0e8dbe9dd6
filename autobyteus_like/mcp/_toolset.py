"""MCPToolset: an MCP server's tools as ``ToolDefinition``s, for agents and teams.

A toolset is a ``ToolSource``: the agent or team it is given to starts it (the first
``acquire``) and stops it (the last ``release``), so the server lives exactly as long as they
do; ``with toolset:`` does the same by hand. Its tools are named ``<name>.<tool>``, validated
against the server's ``inputSchema`` before a call, and run on the toolset's own loop thread:
an agent's tool runner awaits them on its loop (cancelled at the tool's timeout, which sends
the server an MCP cancellation) and synchronous code simply calls ``tool.run(arguments)``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Coroutine, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from types import TracebackType
from typing import TYPE_CHECKING, Any, Literal

from loguru import logger

from autobyteus_like._extras import require_extra
from autobyteus_like.errors import ConfigError, ToolFailure
from autobyteus_like.mcp._catalogue import (
    MCPPrompt,
    MCPPromptInfo,
    MCPResource,
    prompt_info,
    prompt_of,
    resource_info,
    resource_text,
)
from autobyteus_like.mcp._elicitation import ElicitationHandler
from autobyteus_like.mcp._server_config import SERVER_NAME, MCPServerConfig
from autobyteus_like.mcp._tool_definitions import IDEMPOTENCY_META_KEY, Listing
from autobyteus_like.tools._context import ToolContext
from autobyteus_like.tools._definition import ToolDefinition
from autobyteus_like.tools._invocation import ErrorCode

if TYPE_CHECKING:
    from autobyteus_like.mcp._sampling import Sampler, SamplingRequest

__all__ = ["MCPToolset"]

_HANDLER_NAMES = ("on_elicitation", "sampler", "approve_sampling", "on_resource_updated")


@dataclass(frozen=True)
class _Handlers:
    """The toolset's answers to what a server asks of its client."""

    on_elicitation: ElicitationHandler | None
    sampler: Sampler | None
    approve_sampling: Callable[[SamplingRequest], bool] | None
    on_resource_updated: Callable[[str], None] | None

    def callbacks(self, server: str, config: MCPServerConfig,
                  running: Callable[[], Any] | None = None,
                  in_flight: Callable[[], tuple[tuple[str, str], ...]] | None = None) -> Any:
        from autobyteus_like.mcp._connection import ServerCallbacks
        from autobyteus_like.mcp._elicitation import elicitation_callback
        from autobyteus_like.mcp._sampling import sampling_callback

        return ServerCallbacks(
            elicitation=elicitation_callback(server, self.on_elicitation,
                                             config.elicitation_timeout_s, in_flight),
            sampling=sampling_callback(server, self.sampler, self.approve_sampling,
                                       config.sampling_timeout_s, running)
            if config.sampling else None,
            resource_updated=self.on_resource_updated)


class MCPToolset:
    """The tools of one MCP server, started and stopped with the agents or team that use it.

    Build one with ``MCPToolset.stdio(...)`` or ``MCPToolset.http(...)`` (or from an
    ``MCPServerConfig``); pass it in ``tools=[...]`` with other tools. ``name`` is the
    namespace of its tools: ``fs`` gives ``fs.read_file``.
    """

    def __init__(self, name: str, config: MCPServerConfig, *,
                 on_elicitation: ElicitationHandler | None = None,
                 sampler: Sampler | None = None,
                 approve_sampling: Callable[[SamplingRequest], bool] | None = None,
                 on_resource_updated: Callable[[str], None] | None = None) -> None:
        if not isinstance(name, str) or not SERVER_NAME.match(name):
            raise ConfigError(f"mcp server {name!r}", [
                "a server's name is the namespace of its tools: letters, digits, '_' or '-', "
                "starting with a letter or '_', at most 48 characters, no dots"])
        require_extra("mcp", f"mcp server {name!r}")
        self._name = name
        self.config = config
        self._lock = threading.Lock()
        self._users = 0
        self._session: Any = None  # a ToolsetSession while started
        self._started: Future[None] | None = None
        self._listing = Listing()
        self._watchers: list[Callable[[], None]] = []
        self._handlers = _Handlers(on_elicitation, sampler, approve_sampling,
                                   on_resource_updated)
        self._calls: list[ToolContext] = []  # agents' calls in flight (for sampling)

    @classmethod
    def stdio(cls, command: str, args: Sequence[str] = (), *, name: str,
              env: Mapping[str, str] | None = None, cwd: str | None = None,
              **policy: Any) -> MCPToolset:
        """A server run as a subprocess, spoken to over its stdin and stdout. ``policy``:
        ``allow``, ``deny``, ``requires_approval``, ``masked_arguments``, ``timeout_s``,
        ``startup_timeout_s``, ``max_result_chars``, ``max_message_bytes`` (see
        ``MCPServerConfig``)."""
        handlers = {key: policy.pop(key) for key in _HANDLER_NAMES if key in policy}
        return cls(name, MCPServerConfig(command=command, args=list(args), env=dict(env or {}),
                                         cwd=cwd, **policy), **handlers)

    @classmethod
    def http(cls, url: str, *, name: str, headers: Mapping[str, str] | None = None,
             transport: Literal["auto", "streamable-http", "sse"] = "auto",
             **policy: Any) -> MCPToolset:
        """A server reached over streamable HTTP (or SSE, which ``auto`` falls back to)."""
        handlers = {key: policy.pop(key) for key in _HANDLER_NAMES if key in policy}
        return cls(name, MCPServerConfig(url=url, headers=dict(headers or {}),
                                         transport=transport, **policy), **handlers)

    @property
    def namespace(self) -> str:
        """The server's name, which starts each of its tools' names."""
        return self._name

    @property
    def name(self) -> str:
        """The same as ``namespace``."""
        return self._name

    def __repr__(self) -> str:
        return f"MCPToolset({self._name!r}, {self.config.describe()!r})"

    # -- life cycle ----------------------------------------------------------------------------

    def acquire(self) -> Future[None]:
        """Take the toolset into use: the first user starts the server and lists its tools.
        The future fails with a ``ConfigError`` saying why the server could not start."""
        from autobyteus_like.mcp._toolset_session import ToolsetSession  # the SDK, only when used

        with self._lock:
            self._users += 1
            if self._users == 1:
                self._session = ToolsetSession(self._name, self.config, self._make_call,
                                               self._listed, self._handlers.callbacks(
                                                   self._name, self.config, self._running,
                                                   self._in_flight))
                self._started = self._explain(self._session.start())
            assert self._started is not None
            return self._started

    def _explain(self, started: Future[None]) -> Future[None]:
        """The start, with a failure turned into a one-line ``ConfigError``."""
        explained: Future[None] = Future()

        def settle(done: Future[None]) -> None:
            error = done.exception() if not done.cancelled() else RuntimeError("cancelled")
            if error is None:
                explained.set_result(None)
                return
            where = "command" if self.config.kind == "stdio" else "url"
            reason = error.problems[0] if isinstance(error, ConfigError) and error.problems \
                else f"{type(error).__name__}: {error}"
            explained.set_exception(ConfigError(f"mcp server {self._name!r}", [
                f"could not start ({where}: {self.config.describe()}): {reason}"]))

        started.add_done_callback(settle)
        return explained

    def release(self) -> None:
        """End one use; the last stops the server and every process it started and joins the
        toolset's thread."""
        with self._lock:
            if self._users == 0:
                return
            self._users -= 1
            if self._users:
                return
            session, self._session, self._started = self._session, None, None
        session.stop()

    def start(self) -> MCPToolset:
        """Start it by hand (``ConfigError`` if the server cannot start); pair with ``stop``."""
        started = self.acquire()
        try:
            started.result()
        except BaseException:
            self.release()
            raise
        return self

    def stop(self) -> None:
        """Undo one ``start``."""
        self.release()

    def __enter__(self) -> MCPToolset:
        return self.start()

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.stop()

    @property
    def running(self) -> bool:
        """Whether someone holds it started."""
        with self._lock:
            return self._users > 0

    # -- tools ---------------------------------------------------------------------------------

    def tools(self) -> list[ToolDefinition]:
        """The server's tools as of its last listing (none before it first started)."""
        return list(self._listing.definitions)

    @property
    def problems(self) -> list[str]:
        """The server's tools that were left out of the last listing, and why."""
        return list(self._listing.problems)

    # -- prompts and resources (the server must be running) ------------------------------------

    def prompts(self) -> list[MCPPromptInfo]:
        """The prompts the server lists."""
        return [prompt_info(p) for p in self._ask("prompts/list", lambda c: c.list_prompts())]

    def prompt(self, name: str, arguments: Mapping[str, str] | None = None) -> MCPPrompt:
        """The prompt ``name`` filled in with ``arguments``; ``ToolFailure`` for a prompt the
        server does not list, a required argument missing, or the server's refusal."""
        given = {str(k): str(v) for k, v in (arguments or {}).items()}
        known = {info.name: info for info in self.prompts()}
        if name not in known:
            raise ToolFailure(ErrorCode.INVALID_ARGS, f"MCP server {self._name!r} has no prompt "
                              f"{name!r} (it has: {', '.join(sorted(known)) or 'none'})")
        missing = sorted(a for a, required in known[name].arguments.items()
                         if required and a not in given)
        if missing:
            raise ToolFailure(ErrorCode.INVALID_ARGS, f"prompt {name!r} of MCP server "
                              f"{self._name!r} needs the arguments: {', '.join(missing)}")
        result = self._ask(f"prompt {name!r}", lambda c: c.get_prompt(name, given))
        return prompt_of(name, result)

    def resources(self) -> list[MCPResource]:
        """The resources the server lists."""
        return [resource_info(r)
                for r in self._ask("resources/list", lambda c: c.list_resources())]

    def read_resource(self, uri: str) -> str:
        """The resource's text, cut at ``max_result_chars`` with a note."""
        result = self._ask(f"resource {uri!r}", lambda c: c.read_resource(uri))
        return resource_text(result, self.config.max_result_chars)

    def attach(self, message: str, uri: str) -> str:
        """``message`` with the resource ``uri`` read now and put after it (its text cut at
        ``max_result_chars`` like any result), for a member's turn; ``ToolFailure`` naming the
        resource when it cannot be read."""
        text = self.read_resource(uri)
        return (f"{message}\n\n<resource server={self._name!r} uri={uri!r}>\n{text}\n"
                "</resource>")

    def subscribe(self, uri: str) -> None:
        """Ask the server to announce changes of ``uri`` (to ``on_resource_updated``)."""
        self._ask(f"subscribing to {uri!r}", lambda c: c.subscribe(uri))

    def _ask(self, what: str, work: Callable[[Any], Any]) -> Any:
        session = self._session
        if session is None:
            raise ToolFailure(ErrorCode.NOT_AVAILABLE, f"MCP server {self._name!r} is not "
                              "running: start it with its agent or team, or 'with toolset:'")
        return session.ask(what, work)

    def watch(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Call ``callback`` (on the toolset's thread) whenever the tools change; returns the
        function that stops it."""
        with self._lock:
            self._watchers.append(callback)

        def unwatch() -> None:
            with self._lock:
                if callback in self._watchers:
                    self._watchers.remove(callback)

        return unwatch

    def _listed(self, listing: Listing) -> None:
        """A new listing from the session: take it, and tell the watchers if anything
        changed."""
        with self._lock:
            changed = listing.keys != self._listing.keys
            self._listing = listing
            watchers = list(self._watchers)
        for problem in listing.problems:
            logger.warning("mcp server {}: {}", self._name, problem)
        if changed:
            for callback in watchers:
                try:
                    callback()
                except Exception:  # one watcher's bug never stops the others
                    logger.exception("mcp server {}: a tools-changed watcher failed", self._name)

    def _running(self) -> ToolContext | None:
        """The oldest agent's call to this server in flight (a sampling request is its)."""
        with self._lock:
            return next((c for c in self._calls if c.side_llm is not None), None)

    def _in_flight(self) -> tuple[tuple[str, str], ...]:
        """The agents' calls to this server in flight, as (agent, call id)."""
        with self._lock:
            return tuple((c.agent, c.invocation_id) for c in self._calls if c.invocation_id)

    def _make_call(self, remote: str, local: str
                   ) -> Callable[..., Coroutine[Any, Any, Any]]:
        async def call(arguments: dict[str, Any], context: ToolContext | None = None) -> Any:
            session = self._session
            if session is None:
                raise ToolFailure(
                    ErrorCode.NOT_AVAILABLE, f"MCP server {self._name!r} is not running: start it "
                    "with its agent or team, or with 'with toolset:'",
                    suggestion="do without this tool")
            if context is not None:
                with self._lock:
                    self._calls.append(context)
            try:
                meta = None if context is None or not context.invocation_id else {
                    IDEMPOTENCY_META_KEY: context.idempotency_key}  # (an agent's call)
                return await session.call(remote, local, arguments, meta)
            except RuntimeError as exc:  # the session stopped between the check and the call
                raise ToolFailure(ErrorCode.NOT_AVAILABLE, f"MCP server {self._name!r} is not "
                                  f"running ({exc})", suggestion="do without this tool") from None
            finally:
                if context is not None:
                    with self._lock:
                        self._calls.remove(context)

        call.__name__ = local
        return call

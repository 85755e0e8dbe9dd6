"""The MCP server in front of a team: ``ask_<team>`` (and, on request, ``ask_<member>``) as
tools of the official SDK's ``MCPServer``, served over stdio or streamable HTTP.

While the team works, each event worth telling becomes an MCP progress notification (sent when
the client asked for progress); a client that cancels its request stops the turn; a failed
turn is an ``isError`` result saying why. Each member's role is an MCP prompt
(``role_<member>``), and what was asked and answered since the server started is the
resource ``transcript://<team>``.
"""

from __future__ import annotations

import contextlib
import re
import signal
import socket
import sys
from collections import deque
from collections.abc import Callable, Iterator
from typing import Annotated, Any

import anyio
import anyio.abc
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from autobyteus_like.agent._config import AgentConfig
from autobyteus_like.errors import AgentTurnError, AutobyteusLikeError, UsageError
from autobyteus_like.events import AgentEvent
from autobyteus_like.serving._client_elicitation import client_asker
from autobyteus_like.serving._progress import describe
from autobyteus_like.serving._startup import listening_socket, stop_signals_handled
from autobyteus_like.serving._team_host import TeamHost

__all__ = ["build_server", "serve", "tool_name"]

_GRACE_S = 5.0
"""How long a signalled HTTP server waits for open requests before it stops anyway."""
_ILLEGAL = re.compile(r"[^A-Za-z0-9_.\-]")

Message = Annotated[str, Field(description="What to ask, in plain words.")]


def tool_name(name: str) -> str:
    """``ask_<name>``, legal as an MCP tool name (letters, digits, ``_``, ``.``, ``-``)."""
    return f"ask_{_ILLEGAL.sub('_', name)}"[:128]


_TRANSCRIPT_ENTRIES = 500
_TRANSCRIPT_ENTRY_CHARS = 20_000


class AskRecord:
    """What clients asked the served team and what it answered, newest last (the last
    ``_TRANSCRIPT_ENTRIES`` entries, each cut at ``_TRANSCRIPT_ENTRY_CHARS``)."""

    def __init__(self) -> None:
        self._entries: deque[str] = deque(maxlen=_TRANSCRIPT_ENTRIES)

    def add(self, kind: str, who: str, text: str) -> None:
        if len(text) > _TRANSCRIPT_ENTRY_CHARS:
            text = text[:_TRANSCRIPT_ENTRY_CHARS] + f" [cut: {len(text)} characters]"
        self._entries.append(f"## {kind} ({who})\n\n{text}")

    def text(self) -> str:
        return "\n\n".join(self._entries) or "(nothing asked yet)"


def _ask_tool(host: TeamHost, member: str | None, transcript: AskRecord) -> Any:
    async def ask(message: Message, ctx: Context) -> str:
        steps = 0
        who = member or host.team.mail.holder  # (the coordinator until a handoff)

        async def report(event: AgentEvent) -> None:
            nonlocal steps
            line = describe(event)
            if line is not None:
                steps += 1
                await ctx.report_progress(steps, None, line)

        transcript.add("asked", who, message)
        try:
            answer = await host.ask(message, member, report,
                                    elicit=client_asker(ctx, host.config.name))
        except AutobyteusLikeError as exc:  # a failed turn, a refusal, a lost session
            transcript.add("failed", who, str(exc))
            raise ToolError(str(exc)) from None
        except anyio.get_cancelled_exc_class():
            transcript.add("cancelled", who, "the client cancelled the ask")
            raise
        transcript.add("answered", member or host.team.mail.holder, answer)
        return answer

    return ask


def _role_prompt(team: str, member: AgentConfig) -> Callable[[], str]:
    def role() -> str:
        instructions = member.system_prompt.replace("{{tools}}", "").strip()
        return (f"You are {member.name}" + (f", {member.role}" if member.role else "")
                + f", a member of the team {team!r}.\n\n{instructions}").strip()

    return role


def _add_roles_and_transcript(server: MCPServer, host: TeamHost,
                              transcript: AskRecord) -> None:
    config = host.config
    for member in config.members:
        server.prompt(name=f"role_{tool_name(member.name).removeprefix('ask_')}",
                      description=f"The role of {member.name} in the team {config.name!r}"
                      + (f": {member.role}" if member.role else ""))(
            _role_prompt(config.name, member))
    uri = f"transcript://{tool_name(config.name).removeprefix('ask_')}"
    server.resource(uri, name="transcript", mime_type="text/markdown",
                    description=f"What was asked of the team {config.name!r} and what it "
                                "answered since this server started")(transcript.text)


def build_server(host: TeamHost, *, members: bool = False) -> MCPServer:
    """An ``MCPServer`` whose tools ask the team (and, with ``members``, each member)."""
    config = host.config
    roster = ", ".join(f"{m.name} ({m.role})" if m.role else m.name for m in config.members)
    server: MCPServer = MCPServer(config.name, instructions=config.description or None,
                                  log_level="WARNING")
    transcript = AskRecord()
    _add_roles_and_transcript(server, host, transcript)
    team_tool = tool_name(config.name)
    server.add_tool(
        _ask_tool(host, None, transcript), name=team_tool, structured_output=False,
        description=(f"Ask the team {config.name!r}"
                     + (f" ({config.description})" if config.description else "")
                     + f" and get its coordinator's final answer. Members: {roster}."))
    if members:
        for member in config.members:
            name = tool_name(member.name)
            if name == team_tool:
                name = f"{name}_member"
            server.add_tool(
                _ask_tool(host, member.name, transcript), name=name, structured_output=False,
                description=f"Ask {member.name}, a member of the team {config.name!r}"
                            + (f" ({member.role})" if member.role else "")
                            + ", and get its answer.")
    return server


async def _until_signalled(stop: Callable[[], None], *,
                           task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED
                           ) -> None:
    """Call ``stop`` at the first SIGTERM, SIGINT or SIGHUP (listening once started)."""
    with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT, signal.SIGHUP) as signals:
        task_status.started()
        async for _ in signals:
            stop()
            return


async def _serve_http(server: MCPServer, sock: socket.socket, host: str,
                      group: anyio.abc.TaskGroup, stop_team: Callable[[], None],
                      team: TeamHost) -> None:
    """Serve until a signal, then shut down as uvicorn does on its own (connections closed,
    the app's lifespan ended), quietly: cancelling it instead prints a traceback. The team
    is stopped first, so an ask in flight ends at once (its client is told the team
    stopped) instead of holding the shutdown until the grace period ends."""
    import uvicorn

    class QuietServer(uvicorn.Server):
        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:
            yield  # the signals are ours (below): uvicorn would re-raise them on its way out

    bound = sock.getsockname()[1]
    app = server.streamable_http_app(host=host)
    web = QuietServer(uvicorn.Config(app, log_level="warning"))

    async def shut_down() -> None:
        with anyio.CancelScope(shield=True):
            await anyio.to_thread.run_sync(stop_team)
        web.should_exit = True
        await anyio.sleep(_GRACE_S)
        web.force_exit = True  # a client still holding a request: stop without it

    # listening before the address is announced: a signal right after it is ours
    def stop_serving() -> None:
        group.start_soon(shut_down)

    await group.start(_until_signalled, stop_serving)
    team.on_lost = stop_serving  # another process took the session over
    print(f"serving team {server.name!r} over MCP at http://{host}:{bound}/mcp",
          file=sys.stderr, flush=True)
    await web.serve(sockets=[sock])


def serve(host: TeamHost, *, http: tuple[str, int] | None = None, members: bool = False,
          resume: bool = False, abandon: str | None = None) -> None:
    """Start the team, serve it until the client leaves (stdio), or a signal, then stop the
    team and its MCP servers. A session its last process left unfinished is refused (a
    ``UsageError`` saying how to go on) unless ``resume`` (go on with it before serving,
    approvals by the policy) or ``abandon`` (a reason: end it) says what to do with it."""
    server = build_server(host, members=members)
    with stop_signals_handled() as signals:
        sock = None if http is None else listening_socket(*http)  # before the team starts
        stopped = False

        def stop_team() -> None:
            nonlocal stopped
            if not stopped:
                stopped = True
                host.stop()

        async def run() -> None:
            async with anyio.create_task_group() as group:
                if sock is None or http is None:
                    await group.start(_until_signalled, group.cancel_scope.cancel)
                    host.on_lost = group.cancel_scope.cancel
                    await server.run_stdio_async()
                else:
                    await _serve_http(server, sock, http[0], group, stop_team, host)
                group.cancel_scope.cancel()

        try:
            host.start()
            _settle_unfinished(host, resume, abandon)
            anyio.run(run)
            if host.lost is not None:  # another process serves the session now
                raise host.lost
        finally:
            signals.stopping()
            if sock is not None:
                sock.close()
            stop_team()


def _settle_unfinished(host: TeamHost, resume: bool, abandon: str | None) -> None:
    """What the session's last process left unfinished, settled as the command says before
    anyone is served (the outcome on stderr), or refused."""
    if host.unfinished is None:
        return
    assert host.session is not None
    name = host.session.name
    if abandon is not None:
        anyio.run(host.abandon, abandon)
        print(f"session {name!r}: abandoned what its last process left unfinished",
              file=sys.stderr, flush=True)
    elif resume:
        async def nothing(event: AgentEvent) -> None:
            pass

        try:
            answer = anyio.run(host.ask, None, None, nothing)
            print(f"session {name!r}: went on with what its last process left; its answer: "
                  f"{answer}".splitlines()[0], file=sys.stderr, flush=True)
        except AgentTurnError as exc:
            print(f"session {name!r}: went on with what its last process left; it failed: "
                  f"{exc}".splitlines()[0], file=sys.stderr, flush=True)
    else:
        raise UsageError(f"{host.left_behind()}; serve-mcp does not go on "
                         "with it by itself: pass --resume to go on with it first, or "
                         "--abandon REASON to end it")

"""WebTeam: a hosted team as the web page drives it: runs, the event log, decisions, stop.

The team is hosted by the same ``TeamHost`` that serves it over MCP; here its approvals are
left to people. One run at a time: a run gives the coordinator a message and ends when the team
is quiet (``RUN_FINISHED``), fails (``RUN_ERROR``) or is stopped (``RUN_FINISHED``, outcome
``cancelled``; stopping cuts every member's LLM request and tool at once, as the MCP host does
when its client cancels). A decision on a waiting call is taken exactly once: the first
approve or deny wins and reaches the member (and, with a session, its store, as ``approve`` on
the command line would); any later one is refused saying what was decided. Everything here runs
on the server's event loop.
"""

from __future__ import annotations

import itertools
from typing import Any

import anyio
from ag_ui.core import BaseEvent
from anyio.abc import TaskGroup
from loguru import logger

from autobyteus_like.errors import (
    AgentStoppedError,
    AgentTurnError,
    AutobyteusLikeError,
    DecisionRefusedError,
    RunRefusedError,
)
from autobyteus_like.events import (
    AgentEvent,
    AgentStatus,
    ApprovalDenied,
    ApprovalGranted,
    ApprovalRequested,
    ToolResultReceived,
)
from autobyteus_like.serving._team_host import TeamHost
from autobyteus_like.web._agui_events import PREFIX, AguiRun
from autobyteus_like.web._event_log import EventLog

__all__ = ["DecisionRefusedError", "RunRefusedError", "WebTeam"]


_Key = tuple[str, str]
"""A call: its member and its id (ids are unique within a member)."""


class WebTeam:
    """Runs, decisions and the event log of one hosted team."""

    def __init__(self, host: TeamHost) -> None:
        self.host = host
        self.log = EventLog()
        self.thread_id = host.session.name if host.session is not None else host.config.name
        self._run_numbers = itertools.count(1)
        self._run_ids: set[str] = set()
        self._run: AguiRun | None = None
        self._scope: anyio.CancelScope | None = None
        self._tasks: TaskGroup | None = None
        self._waiting: dict[_Key, str] = {}  # -> the tool's name
        self._decided: dict[_Key, str] = {}  # -> "approved" | "denied"

    def attach(self, tasks: TaskGroup) -> None:
        """Where runs go on (the server's task group, for its whole life)."""
        self._tasks = tasks

    @property
    def running(self) -> str | None:
        """The id of the run going on now, if one is."""
        return None if self._run is None else self._run.run_id

    def start_run(self, message: str | None, run_id: str | None = None,
                  thread_id: str | None = None) -> str:
        """Start a run on ``message`` (None: go on with what the session left unfinished);
        its id (``RunRefusedError`` while another one runs). ``run_id`` and ``thread_id``: an AG-UI
        client's own, echoed in the run's events."""
        if self._tasks is None:
            raise RunRefusedError("the server is not running")
        if self._run is not None:
            raise RunRefusedError(f"run {self._run.run_id!r} is still going on; wait for it or "
                             "stop it first")
        if message is None and self.host.session is None:
            raise RunRefusedError("there is no session to go on with")
        if message is not None and not message.strip():
            raise RunRefusedError("the message is empty")
        if message is not None and self.host.unfinished is not None:
            raise RunRefusedError(self.host.refusal())
        run = self._new_run(run_id, thread_id)
        self.log.append(run.run_id, run.started(message))  # (None: the session goes on)
        self._scope = anyio.CancelScope()
        self._tasks.start_soon(self._drive, run, message, self._scope)
        return run.run_id

    def _new_run(self, run_id: str | None, thread_id: str | None) -> AguiRun:
        run_id = run_id or f"run-{next(self._run_numbers)}"
        if run_id in self._run_ids:
            raise RunRefusedError(f"run id {run_id!r} was used before; give each run its own")
        self._run_ids.add(run_id)
        self._run = AguiRun(thread_id or self.thread_id, run_id, lambda: self.host.team.usage)
        return self._run

    async def abandon(self, reason: str) -> str:
        """End what the session's last process left unfinished, as
        ``AgentTeam.abandon_unfinished(reason)`` does, in a run of its own (so every page
        watching sees it); its id. ``RunRefusedError`` while a run goes on, without a
        session, when nothing is unfinished, or where the team refuses (on Ray)."""
        if self._run is not None:
            raise RunRefusedError(f"run {self._run.run_id!r} is still going on; wait for it or "
                                  "stop it first")
        if self.host.session is None:
            raise RunRefusedError("there is no session whose work to abandon")
        if self.host.unfinished is None:
            raise RunRefusedError("the session has nothing unfinished to abandon")
        if not reason.strip():
            raise RunRefusedError("say why the unfinished work is abandoned (a reason)")
        run = self._new_run(None, None)
        self.log.append(run.run_id, run.started(None, abandon=reason.strip()))
        try:
            await self.host.abandon(reason)
        except AutobyteusLikeError as exc:  # refused by the team (a Ray team's hosts)
            self.log.append(run.run_id, run.failed(str(exc), type(exc).__name__))
            raise RunRefusedError(str(exc)) from None
        finally:
            self._run = None
        self.log.append(run.run_id, run.abandoned(reason.strip()))
        return run.run_id

    async def _drive(self, run: AguiRun, message: str | None,
                     scope: anyio.CancelScope) -> None:
        async def report(event: AgentEvent) -> None:
            self._note(event)
            try:
                self.log.append(run.run_id, run.translate(event))
            except Exception:  # one event not shown must not leave the team unwatched
                logger.exception("web run {}: cannot show {}", run.run_id, type(event).__name__)

        try:
            answer: str | None = None
            with scope:
                answer = await self.host.ask(message, None, report, settle_approvals=False)
            if answer is None:  # stopped: the host began a new run in the same team
                self.log.append(run.run_id, [*self._members_idle(run), *run.stopped()])
            else:
                self.log.append(run.run_id, run.finished(answer))
        except (AgentTurnError, AgentStoppedError, AutobyteusLikeError) as exc:
            self.log.append(run.run_id, run.failed(str(exc), type(exc).__name__))
        except Exception as exc:  # a bug must end the run, not the server
            logger.exception("web run {} failed", run.run_id)
            self.log.append(run.run_id, run.failed(f"{type(exc).__name__}: {exc}", "Internal"))
        finally:
            self._waiting.clear()
            self._run = self._scope = None

    def _members_idle(self, run: AguiRun) -> list[BaseEvent]:
        return [run.member_status(member.name, AgentStatus.IDLE.value)
                for member in self.host.config.members]

    def _note(self, event: AgentEvent) -> None:
        if isinstance(event, ApprovalRequested):  # (again, on resume: a new wait)
            key = (event.agent, event.invocation.id)
            self._decided.pop(key, None)
            self._waiting[key] = event.invocation.name
        elif isinstance(event, ApprovalGranted | ApprovalDenied):
            self._waiting.pop((event.agent, event.invocation_id), None)
        elif isinstance(event, ToolResultReceived):
            self._waiting.pop((event.agent, event.result.invocation_id), None)

    def stop(self) -> bool:
        """Stop the run going on (whether there was one)."""
        if self._scope is None:
            return False
        self._scope.cancel()
        return True

    def decide(self, member: str, call_id: str, approve: bool, reason: str = "") -> str:
        """Approve or deny ``member``'s waiting call, once; what was done.
        ``DecisionRefusedError`` when the call was decided already (saying how) or does not wait."""
        key = (member, call_id)
        earlier = self._decided.get(key)
        if earlier is not None:
            raise DecisionRefusedError(f"{member}'s call {call_id!r} was already {earlier}")
        tool = self._waiting.pop(key, None)
        if tool is None:
            raise DecisionRefusedError(f"{member} has no call {call_id!r} waiting for a decision")
        verdict = self._decided[key] = "approved" if approve else "denied"
        if approve:
            self.host.team.approve(member, call_id)
        else:
            self.host.team.deny(member, call_id, reason.strip() or "denied by the user")
        return f"{verdict} {tool} ({call_id}) for {member}"

    def waiting(self) -> list[dict[str, str]]:
        """The calls waiting for a decision now."""
        return [{"member": member, "tool_call_id": call_id, "name": tool}
                for (member, call_id), tool in self._waiting.items()]

    def state(self) -> dict[str, Any]:
        """What the page needs to begin: the team, the run, the newest event's number."""
        config = self.host.config
        return {
            "team": config.name, "coordinator": config.coordinator,
            "members": [{"name": m.name, "role": m.role} for m in config.members],
            "session": None if self.host.session is None else self.host.session.name,
            "running": self.running, "last_event_id": self.log.last_id,
            "standing": None if self.host.session is None or self.running else
            self.host.session.standing(),
            "unfinished": self.host.unfinished,
            "custom_prefix": PREFIX,
        }

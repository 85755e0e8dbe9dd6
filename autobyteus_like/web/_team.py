"""WebTeam: a hosted team as the web page drives it: runs, the event log, decisions, stop.

The team is hosted by the same ``TeamHost`` that serves it over MCP; here its approvals are
left to people. One run at a time: a run gives the coordinator a message and ends when the team
is quiet (``RUN_FINISHED``), fails (``RUN_ERROR``) or is stopped (``RUN_FINISHED``, outcome
``cancelled``; stopping cuts every member's LLM request and tool at once, as the MCP host does
when its client cancels). A run's id is the server's own (``run-N``); an AG-UI client's
``runId`` is echoed in its run's events but never taken for another client's run.

A decision on a waiting call is taken exactly once: the first approve or deny wins and reaches
the member (and, with a session, its store, as ``approve`` on the command line would); any
later one is refused saying what was decided. It goes to the team on a worker thread (a Ray
team's answer never blocks the server's event loop), and the call counts as decided only once
the team took it: a refusal (the call's turn ended, the team is gone) leaves it undecided and
answers why. Once a stop is acknowledged, every decision on that run is refused (a decision on
its way when the stop came is let finish first: it was taken before the stop). Everything else
here runs on the server's event loop.
"""

from __future__ import annotations

import itertools
import secrets
from typing import Any

import anyio
import anyio.lowlevel
import anyio.to_thread
from ag_ui.core import BaseEvent
from anyio.abc import TaskGroup
from loguru import logger

from autobyteus_like.errors import (
    AgentStoppedError,
    AgentTurnError,
    AutobyteusLikeError,
    DecisionRefusedError,
    RunRefusedError,
    UnknownApprovalError,
    UnknownMemberError,
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
from autobyteus_like.team._member_tools import as_instance_event
from autobyteus_like.tools._invocation import NEVER_STARTED
from autobyteus_like.web._agui_events import PREFIX, AguiRun, wire_id
from autobyteus_like.web._elicitations import PageQuestions
from autobyteus_like.web._event_log import EventLog

__all__ = ["DecisionRefusedError", "RunRefusedError", "WebTeam"]


_Key = tuple[str, str]
"""A call: its member and its id (ids are unique within a member)."""


class WebTeam:
    """Runs, decisions and the event log of one hosted team."""

    def __init__(self, host: TeamHost) -> None:
        self.host = host
        self.log = EventLog()
        self.questions = PageQuestions(self.log)
        """The team's MCP servers' elicitations, asked of the page's person."""
        self._loop: anyio.lowlevel.EventLoopToken | None = None
        self.thread_id = host.session.name if host.session is not None else host.config.name
        self.server_id = secrets.token_hex(8)
        """This server process's own id: a page that finds another one after a reconnection
        talks to a restarted server (whose events are numbered anew) and starts afresh."""
        self._run_numbers = itertools.count(1)
        self._client_run_ids: set[str] = set()  # AG-UI clients' own run ids, each used once
        self._run: AguiRun | None = None
        self._scope: anyio.CancelScope | None = None
        self._tasks: TaskGroup | None = None
        self._waiting: dict[_Key, tuple[str, str]] = {}  # -> the tool's name, the run's id
        self._deciding: dict[_Key, anyio.Event] = {}  # decisions on their way to the team
        self._decided: dict[_Key, str] = {}  # -> "approved" | "denied"
        self._ended: dict[_Key, str] = {}  # calls that waited when their run ended -> why
        self._stopped: set[str] = set()  # runs whose stop was acknowledged

    def attach(self, tasks: TaskGroup) -> None:
        """Where runs go on (the server's task group, for its whole life)."""
        self._tasks = tasks
        self._loop = anyio.lowlevel.current_token()

    @property
    def running(self) -> str | None:
        """The id of the run going on now, if one is."""
        return None if self._run is None else self._run.key

    def start_run(self, message: str | None, run_id: str | None = None,
                  thread_id: str | None = None) -> str:
        """Start a run on ``message`` (None: go on with what the session left unfinished);
        its id (``RunRefusedError`` while another one runs). ``run_id`` and ``thread_id``: an AG-UI
        client's own, echoed in the run's events."""
        if self._tasks is None:
            raise RunRefusedError("the server is not running")
        if self._run is not None:
            raise RunRefusedError(f"run {self._run.key!r} is still going on; wait for it or "
                             "stop it first")
        if message is None and self.host.session is None:
            raise RunRefusedError("there is no session to go on with")
        if message is not None and not message.strip():
            raise RunRefusedError("the message is empty")
        if message is not None and self.host.unfinished is not None:
            raise RunRefusedError(self.host.refusal())
        run = self._new_run(run_id, thread_id)
        self.log.append(run.key, run.started(message))  # (None: the session goes on)
        self._scope = anyio.CancelScope()
        self._tasks.start_soon(self._drive, run, message, self._scope)
        return run.key

    def _new_run(self, run_id: str | None, thread_id: str | None) -> AguiRun:
        """A run with the server's own id (``run.key``: the log's, the page's), showing an
        AG-UI client's ``run_id`` on the wire when one was given (once per client id)."""
        if run_id is not None:
            if run_id in self._client_run_ids:
                raise RunRefusedError(f"run id {run_id!r} was used before; give each run "
                                      "its own")
            self._client_run_ids.add(run_id)
        key = f"run-{next(self._run_numbers)}"
        while key in self._client_run_ids:  # never one a client showed for its own run
            key = f"run-{next(self._run_numbers)}"
        self._run = AguiRun(thread_id or self.thread_id, run_id or key,
                            lambda: self.host.team.usage, key=key)
        return self._run

    async def abandon(self, reason: str) -> str:
        """End what the session's last process left unfinished, as
        ``AgentTeam.abandon_unfinished(reason)`` does, in a run of its own (so every page
        watching sees it); its id. ``RunRefusedError`` while a run goes on, without a
        session, when nothing is unfinished, or where the team refuses (on Ray)."""
        if self._run is not None:
            raise RunRefusedError(f"run {self._run.key!r} is still going on; wait for it or "
                                  "stop it first")
        if self.host.session is None:
            raise RunRefusedError("there is no session whose work to abandon")
        if self.host.unfinished is None:
            raise RunRefusedError("the session has nothing unfinished to abandon")
        if not reason.strip():
            raise RunRefusedError("say why the unfinished work is abandoned (a reason)")
        run = self._new_run(None, None)
        self.log.append(run.key, run.started(None, abandon=reason.strip()))
        try:
            await self.host.abandon(reason)
        except AutobyteusLikeError as exc:  # refused by the team (a Ray team's hosts)
            self.log.append(run.key, run.failed(str(exc), type(exc).__name__))
            raise RunRefusedError(str(exc)) from None
        finally:
            self._run = None
        self.log.append(run.key, run.abandoned(reason.strip()))
        return run.key

    async def _drive(self, run: AguiRun, message: str | None,
                     scope: anyio.CancelScope) -> None:
        async def report(event: AgentEvent) -> None:
            self._note(event, run.key)
            try:
                self.log.append(run.key, run.translate(event))
            except Exception:  # one event not shown must not leave the team unwatched
                logger.exception("web run {}: cannot show {}", run.key, type(event).__name__)

        try:
            answer: str | None = None
            with scope:
                answer = await self.host.ask(
                    message, None, report, settle_approvals=False,
                    elicit=None if self._loop is None else self.questions.asker(run.key,
                                                                                self._loop))
            if answer is None:  # stopped: the host began a new run in the same team
                self.log.append(run.key, [*self._members_idle(run), *run.stopped()])
            else:
                self.log.append(run.key, run.finished(self.host.answer_value(answer)))
        except (AgentTurnError, AgentStoppedError, AutobyteusLikeError) as exc:
            self.log.append(run.key, run.failed(str(exc), type(exc).__name__))
        except Exception as exc:  # a bug must end the run, not the server
            logger.exception("web run {} failed", run.key)
            self.log.append(run.key, run.failed(f"{type(exc).__name__}: {exc}", "Internal"))
        finally:
            self.questions.decline_run(run.key)
            self._end_waiting(run.key, "was stopped" if run.key in self._stopped else "ended")
            self._run = self._scope = None

    def _members_idle(self, run: AguiRun) -> list[BaseEvent]:
        return [run.member_status(member.name, AgentStatus.IDLE.value)
                for member in self.host.config.members]

    def _note(self, event: AgentEvent, run: str) -> None:
        event = as_instance_event(event)  # a callee's call: decided by its address
        if isinstance(event, ApprovalRequested):  # (again, on resume: a new wait)
            key = (event.agent, event.invocation.id)
            self._decided.pop(key, None)
            self._ended.pop(key, None)
            if run in self._stopped:  # asked between the stop and its cut: never decided
                self._ended[key] = f"run {run!r} was stopped"
            else:
                self._waiting[key] = (event.invocation.name, run)
        elif isinstance(event, ApprovalGranted | ApprovalDenied):
            self._waiting.pop((event.agent, event.invocation_id), None)
        elif isinstance(event, ToolResultReceived):
            self._waiting.pop((event.agent, event.result.invocation_id), None)

    def _end_waiting(self, run: str, how: str) -> None:
        """The calls of ``run`` still waiting can be decided no more: its run ``how``."""
        for key, (_, of_run) in list(self._waiting.items()):
            if of_run == run:
                del self._waiting[key]
                self._ended[key] = f"run {run!r} {how}"

    async def stop(self) -> bool:
        """Stop the run going on (whether there was one). Once this returns, no decision on
        that run reaches the team: one on its way is let finish first, every later one is
        refused."""
        run, scope = self._run, self._scope
        if run is None or scope is None:
            return False
        self._stopped.add(run.key)
        self._end_waiting(run.key, "was stopped")
        for decision in list(self._deciding.values()):
            await decision.wait()
        try:  # the members refuse every later decision on the run too, whoever sends it
            await anyio.to_thread.run_sync(self.host.team.stop_run)
        except Exception as exc:  # a member's host gone: the cancel below still ends the run
            logger.warning("web: stopping run {!r}: {}: {}", run.key, type(exc).__name__, exc)
        scope.cancel()
        return True

    async def decide(self, member: str, call_id: str, approve: bool, reason: str = "") -> str:
        """Approve or deny ``member``'s waiting call, once; what was done.
        ``DecisionRefusedError`` saying why when the member is unknown, the call was decided
        already (saying how), does not wait, its run was stopped or ended, or the team did
        not take the decision (the call then stays undecided)."""
        names = [config.name for config in self.host.config.members]
        if member not in names and not any(  # a member answering a call as a tool
                known == member for known, _ in (*self._waiting, *self._decided, *self._ended)):
            raise DecisionRefusedError(str(UnknownMemberError(self.host.config.name, member,
                                                              names)))
        key = (member, call_id)
        while (pending := self._deciding.get(key)) is not None:
            self._refuse_if_ended(key)  # (a stop began: refused now, not after the other)
            await pending.wait()  # the decision on its way decides what this one is told
        self._refuse_if_not_waiting(key)
        tool, _ = self._waiting[key]
        verdict = "approved" if approve else "denied"
        done = self._deciding[key] = anyio.Event()
        team = self.host.team
        try:
            if approve:
                await anyio.to_thread.run_sync(team.approve, member, call_id)
            else:
                await anyio.to_thread.run_sync(team.deny, member, call_id,
                                               reason.strip() or "denied by the user")
        except UnknownApprovalError as exc:  # its turn ended while the person thought
            self._waiting.pop(key, None)
            raise DecisionRefusedError(f"{member}'s call {call_id!r} was not {verdict}: "
                                       f"{exc}") from None
        except Exception as exc:  # refused by the team (stopped, its host gone): undecided
            logger.warning("web: {}'s call {!r} was not {}: {}: {}", member, call_id, verdict,
                           type(exc).__name__, exc)
            raise DecisionRefusedError(
                f"{member}'s call {call_id!r} was not {verdict}: the team did not take the "
                f"decision ({type(exc).__name__}: {exc})") from None
        else:
            self._waiting.pop(key, None)
            self._decided[key] = verdict
        finally:
            del self._deciding[key]
            done.set()
        return f"{verdict} {tool} ({call_id}) for {member}"

    def _refuse_if_ended(self, key: _Key) -> None:
        ended = self._ended.get(key)
        if ended is not None:
            member, call_id = key
            started = key in self._deciding or key in self._decided  # decided before the stop
            raise DecisionRefusedError(f"{ended}: {member}'s call {call_id!r} can no longer "
                                       f"be decided{'' if started else f' ({NEVER_STARTED})'}")

    def _refuse_if_not_waiting(self, key: _Key) -> None:
        member, call_id = key
        earlier = self._decided.get(key)
        if earlier is not None:
            raise DecisionRefusedError(f"{member}'s call {call_id!r} was already {earlier}")
        self._refuse_if_ended(key)
        if key not in self._waiting:
            raise DecisionRefusedError(f"{member} has no call {call_id!r} waiting for a "
                                       "decision")

    def waiting(self) -> list[dict[str, str]]:
        """The calls waiting for a decision now."""
        return [{"member": member, "tool_call_id": wire_id(member, call_id),
                 "call_id": call_id, "name": tool}
                for (member, call_id), (tool, _) in self._waiting.items()]

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
            "server": self.server_id,
        }

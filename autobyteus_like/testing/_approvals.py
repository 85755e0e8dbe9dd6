"""Who decides a simulated run's approvals, and the recording of a run until it ends: quiet,
failed, out of time, or stuck on a call that waits for a decision nobody will give."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Literal

from autobyteus_like.agent._subscription import EventSubscription
from autobyteus_like.events import (
    AgentEvent,
    AgentStatus,
    AgentStatusChanged,
    ApprovalRequested,
    ToolResultReceived,
    ToolStarted,
)
from autobyteus_like.tools._invocation import ToolInvocation

__all__ = ["Approvals", "Recorder"]

Approvals = Literal["approve", "deny"] | Callable[[str, ToolInvocation], "bool | str"] | None
"""Who decides a call that waits for approval in a simulated run: ``"approve"`` every call,
``"deny"`` every call, or a function of (agent name, call) returning True (approve), False
(deny) or a string (deny, with that reason for the LLM). None: nobody, so a run that reaches
such a call ends with ``Transcript.error`` naming it."""

DENIED_IN_TEST = "denied by the test's approval policy"
_QUIET = frozenset({AgentStatus.IDLE, AgentStatus.AWAITING_APPROVAL})


class Recorder:
    """Reads a run's events until ``done(event)`` says it ended, deciding approvals on the
    way (``decide(agent, call_id, approved, reason)``); ``error`` says why it ended otherwise.
    """

    def __init__(self, approvals: Approvals,
                 decide: Callable[[str, str, bool, str], None]) -> None:
        if approvals not in ("approve", "deny", None) and not callable(approvals):
            raise ValueError(f"approvals must be 'approve', 'deny', a function or None, not "
                             f"{approvals!r}")
        self._approvals = approvals
        self._decide = decide
        self.events: list[AgentEvent] = []
        self.error: str | None = None
        self._waiting: dict[tuple[str, str], ToolInvocation] = {}
        self._statuses: dict[str, AgentStatus] = {}
        self._running: set[tuple[str, str]] = set()

    def record(self, events: EventSubscription, done: Callable[[AgentEvent], bool],
               timeout: float, what: str) -> AgentEvent | None:
        """The event that ended the run (None if it did not end well: ``error`` says why)."""
        deadline = time.monotonic() + timeout
        try:
            while True:
                try:
                    event = events.get(timeout=max(0.0, deadline - time.monotonic()))
                except TimeoutError:
                    self.error = f"TimeoutError: {what} was still busy after {timeout:g} s"
                    return None
                if event is None:
                    self.error = f"AgentStoppedError: {what} stopped before the run ended"
                    return None
                self.events.append(event)
                self._follow(event)
                if done(event):
                    return event
                if self._stuck():
                    self.error = self._stuck_error()
                    return None
        finally:
            events.close()

    def _follow(self, event: AgentEvent) -> None:
        if isinstance(event, AgentStatusChanged):
            self._statuses[event.agent] = event.status
        elif isinstance(event, ToolStarted):
            self._running.add((event.agent, event.invocation.id))
        elif isinstance(event, ToolResultReceived):
            self._running.discard((event.agent, event.result.invocation_id))
            self._waiting.pop((event.agent, event.result.invocation_id), None)
        elif isinstance(event, ApprovalRequested):
            self._asked(event)

    def _asked(self, event: ApprovalRequested) -> None:
        call = event.invocation
        approvals = self._approvals
        if approvals is None:
            self._waiting[(event.agent, call.id)] = call
            return
        if approvals == "approve" or approvals == "deny":
            verdict: bool | str = approvals == "approve"
        else:
            verdict = approvals(event.agent, call)
        if isinstance(verdict, str):
            self._decide(event.agent, call.id, False, verdict)
        else:
            self._decide(event.agent, call.id, bool(verdict), "" if verdict else DENIED_IN_TEST)

    def _stuck(self) -> bool:
        """Some call waits for a decision nobody will give, and nothing else can move."""
        statuses = set(self._statuses.values())
        return (bool(self._waiting) and AgentStatus.AWAITING_APPROVAL in statuses
                and statuses <= _QUIET and not self._running)

    def _stuck_error(self) -> str:
        calls = ", ".join(f"{agent}'s call {call.name} ({call_id})"
                          for (agent, call_id), call in self._waiting.items())
        return (f"WaitingForApproval: {calls} waits for approval and nothing decides it; pass "
                "approvals='approve', 'deny' or a function to decide such calls")

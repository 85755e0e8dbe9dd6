"""Transcript: everything a simulated run did, in order, ready to assert on."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypeVar

from autobyteus_like.events import (
    AgentErrorOccurred,
    AgentEvent,
    ToolCallParsed,
    ToolResultReceived,
    TurnCompleted,
)
from autobyteus_like.llm._messages import LLMRequest
from autobyteus_like.llm._scripted import ScriptedLLM
from autobyteus_like.mail._events import MessageDelivered
from autobyteus_like.tools._invocation import ToolInvocation, ToolResult

__all__ = ["Transcript"]

E = TypeVar("E", bound=AgentEvent)


@dataclass
class Transcript:
    """The ordered events of a run (every member's and the team's), the scripted LLMs that
    answered, and the run's outcome: ``answer``, or ``error`` saying why the run failed
    (``"AgentTurnError: ..."``, ``"UsageLimitExceededError: ..."``; None if it did not)."""

    events: list[AgentEvent]
    llms: dict[str, ScriptedLLM] = field(default_factory=dict)
    answer: str = ""
    error: str | None = None

    def for_agent(self, name: str) -> list[AgentEvent]:
        """The events of one agent, in order."""
        return [event for event in self.events if event.agent == name]

    def requests(self, agent: str) -> list[LLMRequest]:
        """Every request ``agent``'s LLM received: exactly what it was shown."""
        return list(self.llms[agent].requests)

    def tool_calls(self, agent: str | None = None) -> list[ToolInvocation]:
        """Calls parsed, in order (of one agent, or all)."""
        return [e.invocation for e in self._of(ToolCallParsed, agent)]

    def tool_results(self, agent: str | None = None) -> list[ToolResult]:
        """Results, in the order they arrived (of one agent, or all)."""
        return [e.result for e in self._of(ToolResultReceived, agent)]

    def answers(self, agent: str) -> list[str]:
        """The final answer of each of ``agent``'s turns."""
        return [e.answer for e in self._of(TurnCompleted, agent)]

    def errors(self, agent: str | None = None) -> list[AgentErrorOccurred]:
        """Problems the agents reported."""
        return self._of(AgentErrorOccurred, agent)

    def messages(self) -> list[MessageDelivered]:
        """Messages delivered between members (and from the user), in order."""
        return [event for event in self.events if isinstance(event, MessageDelivered)]

    def failed_turns(self) -> list[TurnCompleted]:
        """Every turn, of any member, that ended with an error."""
        return [event for event in self._of(TurnCompleted, None) if event.error]

    def assert_ok(self) -> None:
        """Fail unless the run ended well: no run error and no member's turn failed."""
        problems = [f"the run failed: {self.error}"] if self.error else []
        problems += [f"{turn.agent}'s turn {turn.turn_id} failed: {turn.error}"
                     for turn in self.failed_turns()]
        if problems:
            raise AssertionError("; ".join(problems))

    def assert_all_consumed(self) -> None:
        """Fail if the run did not end well (``assert_ok``), or if any scripted response was
        never used (the run took a shorter path)."""
        self.assert_ok()
        left = {name: llm.remaining for name, llm in self.llms.items() if llm.remaining}
        if left:
            listing = ", ".join(f"{name}: {count}" for name, count in sorted(left.items()))
            raise AssertionError(f"scripted responses left unused: {listing}")

    def _of(self, kind: type[E], agent: str | None) -> list[E]:
        return [e for e in self.events
                if isinstance(e, kind) and (agent is None or e.agent == agent)]

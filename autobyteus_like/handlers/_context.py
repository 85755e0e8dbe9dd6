"""AgentContext: one agent's state, which its event handlers read and change; what they only
read is its frozen ``env`` (``environment``: settings, tools, format, prompt, hooks, checks).

Only the agent's actor thread touches it, and only the turn machine (``handlers/`` and the
agent's actor) imports it: everything else sees a turn through the hooks (``hooks``). It holds
no callables of the actor: a step yields effects (``effects``: emit an event, stream the LLM,
run a tool, reply, end the run) which the actor carries out. What a turn does step by step is
in ``turn_steps``; which calls may run when, in ``scheduling``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from loguru import logger

from autobyteus_like.events import (
    AgentErrorOccurred,
    AgentEvent,
    AgentStatus,
    AgentStatusChanged,
    ConversationReset,
    UserMessageReceived,
)
from autobyteus_like.formats import NATIVE
from autobyteus_like.handlers._environment import TurnEnvironment
from autobyteus_like.handlers._scheduling import Slot, SlotState, TurnSchedule
from autobyteus_like.llm._messages import Message
from autobyteus_like.parsers._base import FormatParser
from autobyteus_like.parsers._call_builder import CallBuilder
from autobyteus_like.parsers._parse_events import ParseErrorInfo
from autobyteus_like.tools._context import CancelFlag
from autobyteus_like.tools._invocation import ToolInvocation, ToolResult
from autobyteus_like.tools._invocation_ids import InvocationIdAllocator

if TYPE_CHECKING:
    from autobyteus_like.errors import UsageLimitExceededError
    from autobyteus_like.handlers._turn_verdict import TurnVerdict

__all__ = ["AgentContext", "Slot", "SlotState", "TurnCheck", "TurnEnvironment", "TurnState"]

TurnCheck = Callable[["AgentContext"], "TurnVerdict | None"]
"""Looks at ``ctx.turn`` (its response done, every call's result in) and may decide
(``turn_verdict``)."""


@dataclass
class TurnState:
    """One user message's turn: LLM round trips until an answer without tool calls. The
    fields about "the response" are reset for each round trip."""

    turn_id: int
    reply: Future[str] | None
    schedule: TurnSchedule
    iterations: int = 0
    request_no: int = 0
    parser: FormatParser | None = None
    response: list[str] = field(default_factory=list)
    prose: list[str] = field(default_factory=list)
    response_done: bool = False
    held: list[tuple[ParseErrorInfo, ToolInvocation]] = field(default_factory=list)
    """Native calls with broken arguments, reported when the response completes (the finish
    reason says whether they were cut off)."""
    mail_id: str | None = None
    """The team message this turn answers (a session records its answer)."""
    deferred: list[ToolInvocation] = field(default_factory=list)
    """Calls the hooks did not admit early (``admit_early``; a session's writer): parsed while
    the response streams, asked about and started only once the response is complete."""
    failed: dict[str, ToolResult] = field(default_factory=dict)
    """This response's parse-error results by call id (stored with the response)."""
    refused: UsageLimitExceededError | None = None
    """A limit refused one of the turn's calls: the run ends when the running ones are done."""

    def calls(self) -> Iterator[Slot]:
        """The current response's calls, in invocation order."""
        return iter(self.schedule)


class AgentContext:
    """The agent's state: the conversation, the current turn, the messages waiting, call ids
    and the request count; and ``env``, the frozen environment every step reads."""

    def __init__(self, env: TurnEnvironment,
                 wanted: Callable[[type[AgentEvent]], bool] = lambda _: True) -> None:
        self.env = env
        self.ids = InvocationIdAllocator()
        self.native_calls = CallBuilder(NATIVE, env.tools, self.ids)
        """Builds invocations from native calls: rationale, provider ids kept."""
        self.messages: list[Message] = []
        self.status = AgentStatus.IDLE
        self.turn: TurnState | None = None
        self.waiting: deque[UserMessageReceived | ConversationReset] = deque()
        self.wants = wanted
        """Whether anyone takes events of a type (a subscriber, a handler): informational
        events are built only when it says so (the actor sets it when subscribers change)."""
        self.requests = 0
        self.run_stopped = CancelFlag()
        """Set (from any thread) once a stop of this run is acknowledged: no call starts."""

    @property
    def name(self) -> str:
        """The agent's name (``env.name``; a handler of one's own reads it here)."""
        return self.env.name

    def use(self, env: TurnEnvironment) -> None:
        """Go on in ``env`` (refreshed tools, taken at a turn's start)."""
        self.env = env
        self.native_calls = CallBuilder(NATIVE, env.tools, self.ids)

    def set_status(self, status: AgentStatus) -> Iterator[AgentStatusChanged]:
        """Change the status; the event announcing it (once, when someone takes it)."""
        if status is not self.status:
            self.status = status
            if self.wants(AgentStatusChanged):
                yield AgentStatusChanged(agent=self.env.name, status=status)

    def problem(self, message: str, error_type: str) -> AgentErrorOccurred:
        """The event announcing a problem that does not stop the agent (logged here)."""
        logger.warning("agent {}: {}", self.env.name, message)
        return AgentErrorOccurred(agent=self.env.name, message=message, error_type=error_type)

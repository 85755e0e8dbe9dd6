"""AgentContext: one agent's state and the mechanics of a turn, used by its event handlers.

Only the agent's actor thread touches it. Blocking work is handed to services the actor injects
(``stream_llm``, ``run_tool``), which answer with events through the actor's mailbox.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING

from loguru import logger
from pydantic import BaseModel

from autobyteus_like.errors import AgentTurnError
from autobyteus_like.events import (
    AgentErrorOccurred,
    AgentEvent,
    AgentStatus,
    AgentStatusChanged,
    ConversationReset,
    LLMRequestStarted,
    ToolStarted,
    TurnCompleted,
    UserMessageReceived,
)
from autobyteus_like.formats import NATIVE, ToolFormat
from autobyteus_like.llm.messages import LLMRequest, Message
from autobyteus_like.parsers.call_builder import CallBuilder
from autobyteus_like.parsers.streaming import StreamingToolCallParser
from autobyteus_like.tools.context import ToolContext
from autobyteus_like.tools.definition import ToolDefinition
from autobyteus_like.tools.invocation import ToolInvocation, ToolResult
from autobyteus_like.tools.invocation_ids import InvocationIdAllocator
from autobyteus_like.tools.redaction import redact_invocation
from autobyteus_like.tools.registry import ToolRegistry

if TYPE_CHECKING:
    from autobyteus_like.agent.config import AgentConfig

__all__ = ["AgentContext", "Slot", "SlotState", "TurnState"]


class SlotState(StrEnum):
    """Where one call of a turn stands."""

    PENDING = "pending"  # parsed, not yet validated
    AWAITING_APPROVAL = "awaiting_approval"
    READY = "ready"  # approved, waiting for its turn to run
    RUNNING = "running"
    DONE = "done"


@dataclass
class Slot:
    """One call of a turn, in invocation order; its result goes back in this position."""

    invocation: ToolInvocation
    tool: ToolDefinition | None = None
    state: SlotState = SlotState.PENDING
    result: ToolResult | None = None
    bound: BaseModel | None = None
    """The arguments as validated once, handed to the tool as they are."""


@dataclass
class TurnState:
    """One user message's turn: LLM round trips until an answer without tool calls."""

    turn_id: int
    reply: Future[str] | None
    iterations: int = 0
    request_no: int = 0
    parser: StreamingToolCallParser | None = None
    response: list[str] = field(default_factory=list)
    prose: list[str] = field(default_factory=list)
    response_done: bool = False
    slots: list[Slot] = field(default_factory=list)
    by_id: dict[str, Slot] = field(default_factory=dict)


class AgentContext:
    """The agent's conversation, current turn and services."""

    def __init__(
        self,
        config: AgentConfig,
        tools: ToolRegistry,
        tool_format: ToolFormat,
        stream_llm: Callable[[int, LLMRequest], None],
        run_tool: Callable[
            [ToolInvocation, ToolDefinition, float | None, ToolContext, BaseModel | None], None
        ],
        system_prompt: str,
        wanted: Callable[[type[AgentEvent]], bool] = lambda _: True,
    ) -> None:
        self.config = config
        self.name = config.name
        self.tools = tools
        self.format = tool_format
        self.native = tool_format.name == NATIVE
        self.sequential = config.resolved_execution() == "sequential"
        """Native tool calling: tools in the request, calls and results as structured data."""
        self.ids = InvocationIdAllocator()
        self.native_calls = CallBuilder(NATIVE, tools, self.ids)
        """Builds invocations from native calls: rationale, coercion, provider ids kept."""
        self.system_prompt = system_prompt
        self.messages: list[Message] = []
        self.status = AgentStatus.IDLE
        self.turn: TurnState | None = None
        self.waiting: deque[UserMessageReceived | ConversationReset] = deque()
        self.outbox: deque[AgentEvent] = deque()
        self.afterwards: list[Callable[[], None]] = []
        """Run by the actor once every event of the current message is published."""
        self._stream_llm = stream_llm
        self._run_tool = run_tool
        self._wanted = wanted
        self._requests = 0

    # -- events ------------------------------------------------------------------------------

    def emit(self, event: AgentEvent) -> None:
        """Publish and handle ``event`` after the current one (FIFO, on the actor thread).
        An event that no subscriber and no handler wants is dropped right here."""
        if self._wanted(type(event)):
            self.outbox.append(event)

    def set_status(self, status: AgentStatus) -> None:
        """Change the status, announcing it once."""
        if status != self.status:
            self.status = status
            self.emit(AgentStatusChanged(agent=self.name, status=status))

    def report_error(self, message: str, error_type: str) -> None:
        """Announce a problem without stopping the agent."""
        logger.warning("agent {}: {}", self.name, message)
        self.emit(AgentErrorOccurred(agent=self.name, message=message, error_type=error_type))

    # -- the turn ----------------------------------------------------------------------------

    def start_turn(self, message: UserMessageReceived) -> None:
        """Begin a turn for ``message`` and ask the LLM."""
        content = message.text if message.sender is None else (
            f"Message from {message.sender}:\n{message.text}"
        )
        self.messages.append(Message("user", content))
        self.turn = TurnState(turn_id=message.turn_id, reply=message.reply)
        self.request_llm()

    def request_llm(self) -> None:
        """Start the next LLM round trip of the turn, unless max_iterations is reached."""
        turn = self.turn
        assert turn is not None
        if turn.iterations >= self.config.max_iterations:
            self.complete_turn(
                "",
                f"max_iterations ({self.config.max_iterations}) reached: the LLM was still "
                "calling tools; raise max_iterations or simplify the task",
            )
            return
        self._requests += 1
        turn.iterations += 1
        turn.request_no = self._requests
        turn.parser = StreamingToolCallParser(
            self.format.name, self.tools, self.ids, factory=self.format.parser_factory
        )
        turn.response, turn.prose, turn.response_done = [], [], False
        turn.slots, turn.by_id = [], {}
        self.set_status(AgentStatus.THINKING)
        self.emit(LLMRequestStarted(
            agent=self.name, turn_id=turn.turn_id, request_no=turn.request_no,
            iteration=turn.iterations, message_count=len(self.messages),
        ))
        tools = tuple(self.tools) if self.native else ()
        self._stream_llm(turn.request_no,
                         LLMRequest(self.system_prompt, tuple(self.messages), tools))

    def complete_turn(self, answer: str, error: str | None = None) -> None:
        """End the turn, answer whoever waits, and start the next waiting message."""
        turn = self.turn
        assert turn is not None
        self.turn = None
        if error is not None:
            self.report_error(error, "TurnFailed")
        self.emit(TurnCompleted(agent=self.name, turn_id=turn.turn_id, answer=answer,
                                error=error, iterations=turn.iterations))
        reply = turn.reply
        if reply is not None and not reply.done():
            # Resolved after this turn's events are published, so whoever waits on the reply
            # (a caller, a team counting messages) never overtakes them.
            if error is None:
                self.afterwards.append(lambda: _resolve(reply, answer))
            else:
                failure = AgentTurnError(self.name, error)
                self.afterwards.append(lambda: _fail(reply, failure))
        self.set_status(AgentStatus.IDLE)
        while self.waiting and self.turn is None:
            waiting = self.waiting.popleft()
            if isinstance(waiting, ConversationReset):
                self.messages.clear()
            else:
                self.start_turn(waiting)

    def add_slot(self, invocation: ToolInvocation) -> Slot:
        """Reserve the next result position of the current response for ``invocation``."""
        turn = self.turn
        assert turn is not None
        slot = Slot(invocation, self.tools.find(invocation.name))
        turn.slots.append(slot)
        turn.by_id[invocation.id] = slot
        return slot

    def run_ready_calls(self) -> None:
        """Start every call allowed to run now, in invocation order.

        Parallel mode starts ready calls together; a tool marked ``sequential`` is a barrier:
        it starts only when nothing runs, and nothing after it starts until it is done.
        Sequential mode makes every call such a barrier (seed 000).
        """
        turn = self.turn
        if turn is None:
            return
        sequential_mode = self.sequential
        running = [slot for slot in turn.slots if slot.state is SlotState.RUNNING]
        if any(sequential_mode or (s.tool is not None and s.tool.sequential) for s in running):
            return
        for slot in turn.slots:
            if slot.state is SlotState.DONE:
                continue
            barrier = sequential_mode or (slot.tool is not None and slot.tool.sequential)
            if slot.state is SlotState.READY and not (barrier and running):
                self._start(slot)
                running.append(slot)
            if barrier:
                break
        self._update_status()

    def _start(self, slot: Slot) -> None:
        assert slot.tool is not None
        slot.state = SlotState.RUNNING
        self.emit(ToolStarted(agent=self.name, invocation=slot.invocation))
        timeout = slot.tool.timeout_s if slot.tool.timeout_s is not None else (
            self.config.tool_timeout_s
        )
        context = ToolContext(agent=self.name, invocation_id=slot.invocation.id,
                              sandbox=self.config.sandbox_for(slot.tool.name))
        shown = redact_invocation(slot.invocation, slot.tool)
        logger.debug("agent {} runs {}({}) why={!r}", self.name, shown.name, shown.arguments,
                     shown.why)
        self._run_tool(slot.invocation, slot.tool, timeout, context, slot.bound)

    def _update_status(self) -> None:
        turn = self.turn
        if turn is None:
            return
        states = {slot.state for slot in turn.slots}
        if SlotState.AWAITING_APPROVAL in states:
            self.set_status(AgentStatus.AWAITING_APPROVAL)
        elif SlotState.RUNNING in states:
            self.set_status(AgentStatus.RUNNING_TOOLS)

    def advance(self) -> None:
        """When the response is complete and every call has its result: send the results (in
        invocation order) to the LLM, or end the turn if the response made no calls."""
        turn = self.turn
        if turn is None or not turn.response_done:
            return
        if any(slot.result is None for slot in turn.slots):
            self._update_status()
            return
        if not turn.slots:
            self.complete_turn("".join(turn.prose).strip())
            return
        results = [slot.result for slot in turn.slots if slot.result is not None]
        if self.native:
            self.messages.append(Message("tool", "", tool_results=tuple(results)))
        else:
            rendered = self.format.results([slot.invocation for slot in turn.slots], results)
            self.messages.append(Message("user", rendered))
        self.request_llm()


def _resolve(reply: Future[str], answer: str) -> None:
    if not reply.done():
        reply.set_result(answer)


def _fail(reply: Future[str], error: BaseException) -> None:
    if not reply.done():
        reply.set_exception(error)

"""The typed events of an agent's life: what its handlers consume and its subscribers see.

Every event is small, immutable and names the agent it belongs to, so the events of a whole team
can be merged into one stream.
"""

from __future__ import annotations

from concurrent.futures import Future
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from autobyteus_like._frozen_values import fast_frozen
from autobyteus_like.llm._messages import Message, NativeToolCall
from autobyteus_like.parsers._parse_events import ParseErrorInfo
from autobyteus_like.tools._image_content import ImageContent
from autobyteus_like.tools._invocation import ToolInvocation, ToolResult

__all__ = [
    "AgentErrorOccurred",
    "AgentEvent",
    "AgentStatus",
    "AgentStatusChanged",
    "ApprovalDenied",
    "ApprovalGranted",
    "ApprovalRequested",
    "AssistantTextDelta",
    "ConversationHandedOver",
    "ConversationReset",
    "LLMAdapted",
    "LLMChunkReceived",
    "LLMModelSwitched",
    "LLMRequestFailed",
    "LLMRequestStarted",
    "LLMResponseCompleted",
    "PendingToolInvocation",
    "ToolCallParseFailed",
    "ToolCallParsed",
    "ToolResultReceived",
    "ToolStarted",
    "TurnCompleted",
    "UserMessageReceived",
]


class AgentStatus(StrEnum):
    """What an agent is doing."""

    IDLE = "idle"
    THINKING = "thinking"
    AWAITING_APPROVAL = "awaiting_approval"
    RUNNING_TOOLS = "running_tools"
    STOPPED = "stopped"


@fast_frozen
@dataclass(frozen=True, slots=True, kw_only=True)
class AgentEvent:
    """Base of every event: the name of the agent it happened in."""

    agent: str


@fast_frozen
@dataclass(frozen=True, slots=True, kw_only=True)
class UserMessageReceived(AgentEvent):
    """A message for the agent; it starts a turn, or waits for the current one to finish."""

    text: str
    turn_id: int
    sender: str | None = None
    """Who sent it: None for the user, or another agent's name."""
    images: tuple[ImageContent, ...] = ()
    """Images that come with the text (``agent.run(["look:", ImageContent(...)])``)."""
    reply: Future[str] | None = field(default=None, compare=False, repr=False)
    """Completed with the turn's answer (or its error) when the turn ends."""
    mail_id: str | None = None
    """The team message it delivers, in a team with a session store."""
    trace_parent: object | None = field(default=None, compare=False, repr=False)
    """The OpenTelemetry span context the turn's span continues (a teammate's call that sent
    the message, or the sender's own span); set only when tracing is on."""


@fast_frozen
@dataclass(frozen=True, slots=True, kw_only=True)
class ConversationReset(AgentEvent):
    """Forget the conversation so far (applied between turns, never inside one)."""

    turn_id: int = 0
    """Its place among the agent's turns (a session stores a reset that has to wait)."""
    history: tuple[Message, ...] = field(default=(), compare=False, repr=False)
    """The conversation to start from (seeding); empty: start from nothing."""


@fast_frozen
@dataclass(frozen=True, slots=True, kw_only=True)
class LLMRequestStarted(AgentEvent):
    """The agent asked its LLM for a response (``iteration`` counts round trips this turn)."""

    turn_id: int
    request_no: int
    iteration: int
    message_count: int


@fast_frozen
@dataclass(frozen=True, slots=True, kw_only=True)
class LLMChunkReceived(AgentEvent):
    """A streamed piece of the LLM's response: text, and/or complete native tool calls."""

    request_no: int
    text: str
    tool_calls: tuple[NativeToolCall, ...] = ()


@fast_frozen
@dataclass(frozen=True, slots=True, kw_only=True)
class LLMResponseCompleted(AgentEvent):
    """The LLM finished its response (every piece of text came before, as chunks)."""

    request_no: int
    input_tokens: int | None = None
    """Everything the model read, cached tokens included (None: not reported)."""
    output_tokens: int | None = None
    """Everything the model wrote, reasoning included."""
    reasoning_tokens: int | None = None
    """The part of ``output_tokens`` spent reasoning, where the provider says."""
    cached_input_tokens: int | None = None
    """The part of ``input_tokens`` read from the provider's cache, where it says."""
    finish_reason: str | None = None
    """Why the response ended: "stop", "length" (cut off at max_tokens), "tool_calls",
    "content_filter", or another provider value as given (None: not reported)."""
    provider_finish_reason: str | None = None
    """The same, exactly as the provider said it."""
    carried: tuple[dict[str, Any], ...] = field(default=(), compare=False, repr=False)
    """What the provider wants back with this answer (``Message.carried``: opaque, often
    large; left out of the event's JSON and repr)."""
    answered_by: tuple[str, str] | None = None
    """``(provider, model)`` of a fallback model that answered (None: the agent's own)."""
    fallbacks: tuple[str, ...] = ()
    """Why each model before it was given up on (``from -> to: reason``), in order."""
    adapted: tuple[tuple[str, str, str], ...] = ()
    """How the LLM adapted to its server during this response, as ``(what, now, reason)``
    (each also announced as an ``LLMAdapted`` event); spans record it."""


@fast_frozen
@dataclass(frozen=True, slots=True, kw_only=True)
class LLMModelSwitched(AgentEvent):
    """A model failed before answering and the next fallback model was tried."""

    request_no: int
    from_model: str
    """``provider/model`` of the model given up on."""
    to_model: str
    reason: str


@fast_frozen
@dataclass(frozen=True, slots=True, kw_only=True)
class LLMRequestFailed(AgentEvent):
    """The LLM call raised; the turn ends with this error. A provider's failure has
    ``error_type`` "LLMError" and a message naming provider, model, status and attempts."""

    request_no: int
    error: str
    error_type: str


@fast_frozen
@dataclass(frozen=True, slots=True, kw_only=True)
class LLMAdapted(AgentEvent):
    """The LLM changed how it talks to its server for the rest of its life: ``what``
    (``wire``: requests with tools go unstreamed; ``tool_format``: calls in a text format),
    what it is ``now``, and ``reason``."""

    request_no: int
    what: str
    now: str
    reason: str


@fast_frozen
@dataclass(frozen=True, slots=True, kw_only=True)
class AssistantTextDelta(AgentEvent):
    """Prose the LLM wrote around its tool calls (the parser's text)."""

    text: str


@fast_frozen
@dataclass(frozen=True, slots=True, kw_only=True)
class ToolCallParsed(AgentEvent):
    """A complete call was read from the stream."""

    invocation: ToolInvocation


@fast_frozen
@dataclass(frozen=True, slots=True, kw_only=True)
class ToolCallParseFailed(AgentEvent):
    """A call could not be read; it gets a PARSE_ERROR result in its slot."""

    error: ParseErrorInfo
    invocation_id: str


@fast_frozen
@dataclass(frozen=True, slots=True, kw_only=True)
class PendingToolInvocation(AgentEvent):
    """A parsed call waiting to be validated, approved and run."""

    invocation: ToolInvocation


@fast_frozen
@dataclass(frozen=True, slots=True, kw_only=True)
class ApprovalRequested(AgentEvent):
    """A call waits for ``approve`` or ``deny``."""

    invocation: ToolInvocation


@fast_frozen
@dataclass(frozen=True, slots=True, kw_only=True)
class ApprovalGranted(AgentEvent):
    """Someone approved a waiting call."""

    invocation_id: str


@fast_frozen
@dataclass(frozen=True, slots=True, kw_only=True)
class ApprovalDenied(AgentEvent):
    """Someone denied a waiting call; it gets a DENIED result."""

    invocation_id: str
    reason: str


@fast_frozen
@dataclass(frozen=True, slots=True, kw_only=True)
class ToolStarted(AgentEvent):
    """A call began executing."""

    invocation: ToolInvocation


@fast_frozen
@dataclass(frozen=True, slots=True, kw_only=True)
class ToolResultReceived(AgentEvent):
    """A call's result (success or failure), in whatever order calls finish."""

    result: ToolResult


@fast_frozen
@dataclass(frozen=True, slots=True, kw_only=True)
class TurnCompleted(AgentEvent):
    """The turn ended: with the LLM's final answer, or with an error."""

    turn_id: int
    answer: str
    error: str | None = None
    iterations: int = 0


@fast_frozen
@dataclass(frozen=True, slots=True, kw_only=True)
class AgentErrorOccurred(AgentEvent):
    """Something went wrong inside the agent; it keeps running."""

    message: str
    error_type: str


@fast_frozen
@dataclass(frozen=True, slots=True, kw_only=True)
class AgentStatusChanged(AgentEvent):
    """The agent's status changed."""

    status: AgentStatus


@dataclass(frozen=True, slots=True, kw_only=True)
class ConversationHandedOver(AgentEvent):
    """A member handed the conversation over (``agent`` is the team's name): ``receiver``
    holds it from now on and answers for the team (docs/handoffs.md)."""

    sender: str
    receiver: str
    reason: str
    invocation_id: str
    """The sender's ``transfer_to_<receiver>`` call."""

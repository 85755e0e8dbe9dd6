"""What an LLM is sent: the conversation, as immutable messages."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from autobyteus_like._frozen_values import fast_frozen
from autobyteus_like.tools._call_rules import CallRules

if TYPE_CHECKING:
    from autobyteus_like.tools._definition import ToolDefinition
    from autobyteus_like.tools._image_content import ImageContent
    from autobyteus_like.tools._invocation import ParseErrorInfo, ToolInvocation, ToolResult

__all__ = ["Adaptation", "LLMChunk", "LLMRequest", "Message", "ModelSwitch", "NativeToolCall",
           "TokenUsage"]


@fast_frozen
@dataclass(frozen=True, slots=True)
class Message:
    """One conversation message.

    Text formats send tool results back as ``user`` messages. With native tool calling an
    ``assistant`` message carries its ``tool_calls`` and a ``tool`` message carries the
    results, in invocation order, for the provider's wire format.
    """

    role: Literal["user", "assistant", "tool"]
    content: str
    tool_calls: tuple[ToolInvocation, ...] = ()
    tool_results: tuple[ToolResult, ...] = ()
    images: tuple[ImageContent, ...] = ()
    """Images that follow a ``user`` message's text (from the user, or from tool results in a
    text format); a ``tool`` message's images are on its results."""
    carried: tuple[dict[str, Any], ...] = ()
    """What a provider asked to get back verbatim with this assistant message, as JSON data
    (``{"wire": ..., "item": ...}``: the Responses API's reasoning items with their
    ``encrypted_content``). Each wire sends back its own and ignores the others'."""


_NO_RULES = CallRules()


@fast_frozen
@dataclass(frozen=True, slots=True)
class LLMRequest:
    """Everything one LLM call sees: the system prompt, the history, and (native tool calling
    only) the tools to declare to the provider, with the member's ``rules`` for calling them
    (``tool_choice``, ``parallel_tool_calls``)."""

    system_prompt: str
    messages: tuple[Message, ...]
    tools: tuple[ToolDefinition, ...] = ()
    rules: CallRules = _NO_RULES
    response_schema: dict[str, Any] | None = None
    """The JSON schema the answer's text must follow, for a provider's own structured output
    (an agent's ``output_mode="provider"``); None: free text."""


@fast_frozen
@dataclass(frozen=True, slots=True)
class NativeToolCall:
    """A tool call as a provider's decoder assembled it: the arguments still JSON text."""

    id: str | None
    name: str
    arguments: str
    unreadable: ParseErrorInfo | None = None
    """Set for a call written in a text format that could not be read (``tool_format: auto``
    reading a text reply): what was wrong, told to the model as a parse error."""


@fast_frozen
@dataclass(frozen=True, slots=True)
class TokenUsage:
    """Token counts, with one meaning for every provider.

    ``input_tokens`` counts everything the model read, cached tokens included; ``output_tokens``
    everything it wrote, reasoning included. ``reasoning_tokens`` and ``cached_input_tokens``
    break those down; None where the provider does not say.
    """

    input_tokens: int = 0
    output_tokens: int = 0
    reasoning_tokens: int | None = None
    cached_input_tokens: int | None = None

    def __post_init__(self) -> None:
        # Counts come from a server's JSON: anything but a whole, non-negative number is
        # unknown, never a string or a boolean that would break a sum later.
        for name in ("input_tokens", "output_tokens"):
            if not _count(getattr(self, name)):
                object.__setattr__(self, name, 0)
        for name in ("reasoning_tokens", "cached_input_tokens"):
            value = getattr(self, name)
            if value is not None and not _count(value):
                object.__setattr__(self, name, None)


def _count(value: object) -> bool:
    return type(value) is int and value >= 0  # bool is not a count


@fast_frozen
@dataclass(frozen=True, slots=True)
class Adaptation:
    """The LLM changed how it talks to its server, for the rest of its life: ``what``
    changed (``wire``, ``tool_format``), what it is ``now`` (``unstreamed``, ``xml``) and why."""

    what: str
    now: str
    reason: str


@fast_frozen
@dataclass(frozen=True, slots=True)
class ModelSwitch:
    """A fallback: the model that failed, why, and the model tried next."""

    from_provider: str
    from_model: str
    to_provider: str
    to_model: str
    reason: str


@fast_frozen
@dataclass(frozen=True, slots=True)
class LLMChunk:
    """A piece of a streamed response. ``final`` marks the last one, when the provider knows
    (it lets the agent take the last text and the end of the response as one message)."""

    text: str = ""
    usage: TokenUsage | None = None
    final: bool = False
    tool_calls: tuple[NativeToolCall, ...] = ()
    """Complete native tool calls (the decoder is the single assembler of deltas)."""
    finish_reason: str | None = None
    """Why the response ended, normalised (``finish_reasons``): "stop", "length" (cut off at
    max_tokens), "tool_calls", "content_filter", or another provider value as given."""
    provider_finish_reason: str | None = None
    """The same, exactly as the provider said it (``end_turn``, ``MAX_TOKENS``, ...)."""
    carried: tuple[dict[str, Any], ...] = ()
    """Items the provider wants back with this response (``Message.carried``)."""
    switch: ModelSwitch | None = None
    """Set (on a chunk of its own, before any other) when a fallback model takes over."""
    adapted: Adaptation | None = None
    """Set on a chunk of its own when the LLM adapted to its server (``Adaptation``)."""

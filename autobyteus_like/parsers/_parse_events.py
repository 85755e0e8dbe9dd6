"""What a streaming parser emits, and what a whole parse returns."""

from __future__ import annotations

from dataclasses import dataclass, field

from autobyteus_like._frozen_values import fast_frozen
from autobyteus_like.tools._invocation import ParseErrorInfo, ToolInvocation

__all__ = [
    "ParseErrorInfo",
    "ParseEvent",
    "ParseResult",
    "TextDelta",
    "ToolCallCompleted",
    "ToolCallFailed",
    "ToolCallStarted",
]


@fast_frozen
@dataclass(frozen=True, slots=True)
class TextDelta:
    """Prose around the calls."""

    text: str


@fast_frozen
@dataclass(frozen=True, slots=True)
class ToolCallStarted:
    """A call began. ``id`` is known here only if the model supplied one; the completed
    invocation always carries the final id, and ``index`` links the two."""

    index: int
    name: str | None
    id: str | None = None


@fast_frozen
@dataclass(frozen=True, slots=True)
class ToolCallCompleted:
    """A call is complete; emitted the moment its closing marker arrives."""

    invocation: ToolInvocation
    index: int = 0


@fast_frozen
@dataclass(frozen=True, slots=True)
class ToolCallFailed:
    """A call could not be read; the valid calls around it are unaffected."""

    error: ParseErrorInfo

    @property
    def index(self) -> int:
        """The failed call's position among the response's calls."""
        return self.error.index


ParseEvent = TextDelta | ToolCallStarted | ToolCallCompleted | ToolCallFailed


@dataclass(frozen=True)
class ParseResult:
    """Everything a response held: calls in document order, errors, and the prose around them."""

    invocations: list[ToolInvocation] = field(default_factory=list)
    errors: list[ParseErrorInfo] = field(default_factory=list)
    text: str = ""

    @classmethod
    def from_events(cls, events: list[ParseEvent]) -> ParseResult:
        """Collect a list of events into a result."""
        invocations: list[ToolInvocation] = []
        errors: list[ParseErrorInfo] = []
        text: list[str] = []
        for event in events:
            if isinstance(event, TextDelta):
                text.append(event.text)
            elif isinstance(event, ToolCallCompleted):
                invocations.append(event.invocation)
            elif isinstance(event, ToolCallFailed):
                errors.append(event.error)
        return cls(invocations=invocations, errors=errors, text="".join(text))

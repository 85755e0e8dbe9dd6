"""Tracing: where spans go and what they may hold. Nothing of OpenTelemetry is imported here
until tracing is on, and it is on only when an SDK is configured (or a provider is given): with
the API alone, agents create no spans and pay nothing for them."""

from __future__ import annotations

import os
import sys
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from opentelemetry.trace import Tracer, TracerProvider

__all__ = ["CONTENT_SWITCH", "SpanDirectory", "Tracing"]

CONTENT_SWITCH = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
"""The GenAI instrumentations' own switch for recording content; ``true`` turns it on here."""


class SpanDirectory:
    """The open ``execute_tool`` spans of a team's members, by (member, call id): a message a
    member sends from a tool becomes a child of that call's span in the receiver's turn."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._spans: dict[tuple[str, str], Any] = {}

    def add(self, agent: str, call_id: str, span_context: Any) -> None:
        with self._lock:
            self._spans[(agent, call_id)] = span_context

    def remove(self, agent: str, call_id: str) -> None:
        with self._lock:
            self._spans.pop((agent, call_id), None)

    def get(self, agent: str, call_id: str | None) -> Any:
        """The span context of a member's running call (None: unknown or finished)."""
        if call_id is None:
            return None
        with self._lock:
            return self._spans.get((agent, call_id))


@dataclass(frozen=True)
class Tracing:
    """How agents trace. ``provider``: a ``TracerProvider`` of one's own (tests, or several
    pipelines in one process); None uses the global one, once an SDK has set it.
    ``capture_content``: record prompts, answers, arguments and results (redacted as events
    are); None reads ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT``; off by default."""

    provider: TracerProvider | None = None
    capture_content: bool | None = None
    directory: SpanDirectory = field(default_factory=SpanDirectory, compare=False)
    """Shared by the members of one team (``AgentTeam`` gives its members a fresh one)."""

    @property
    def content(self) -> bool:
        """Whether content is recorded."""
        if self.capture_content is not None:
            return self.capture_content
        return os.environ.get(CONTENT_SWITCH, "").strip().lower() == "true"

    def tracer(self) -> Tracer | None:
        """The tracer to use, or None when tracing is off (no SDK configured, no provider)."""
        if self.provider is not None:
            return self.provider.get_tracer("autobyteus_like")
        if "opentelemetry.trace" not in sys.modules:
            return None  # nobody configured an SDK: that needs this module
        from opentelemetry import trace

        provider = trace.get_tracer_provider()
        if isinstance(provider, trace.ProxyTracerProvider | trace.NoOpTracerProvider):
            return None
        return provider.get_tracer("autobyteus_like")

    def for_team(self) -> Tracing:
        """The same settings with a directory of the team's own."""
        return Tracing(self.provider, self.capture_content)


def current_parent() -> Any:
    """The caller's current OpenTelemetry context, if it has a span (a user's own span around
    ``agent.send`` becomes the turn's parent)."""
    if "opentelemetry.trace" not in sys.modules:
        return None
    from opentelemetry import trace

    span_context = trace.get_current_span().get_span_context()
    return span_context if span_context.is_valid else None

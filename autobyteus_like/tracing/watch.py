"""AgentWatch: what an agent's actor shows its events to before handling them: its usage meter
always, its spans when tracing is on. The actor's one seam for usage, limits and tracing."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from autobyteus_like.errors import UsageLimitExceededError
from autobyteus_like.events import AgentEvent
from autobyteus_like.handlers.context import AgentContext
from autobyteus_like.llm.base import LLM
from autobyteus_like.tracing.settings import Tracing
from autobyteus_like.usage.meter import AgentMeter
from autobyteus_like.usage.prices import model_name
from autobyteus_like.usage.report import AgentUsage

if TYPE_CHECKING:
    from autobyteus_like.tracing.spans import AgentSpans

__all__ = ["AgentWatch", "build_watch"]


class AgentWatch:
    """A meter, and spans if tracing is on; ``kinds`` are the event types either reads."""

    def __init__(self, meter: AgentMeter, spans: AgentSpans | None = None) -> None:
        self.meter = meter
        self.spans = spans
        self.kinds: frozenset[type[AgentEvent]] = (
            meter.kinds | spans.kinds if spans is not None else meter.kinds)
        self.see: Callable[[AgentEvent, AgentContext], UsageLimitExceededError | None] = (
            meter.see if spans is None else self._see_both)
        """Record an event; the error that ended the run, if it has ended (then the event is
        not handled). Without spans, the meter's own (one call less per event)."""
        self.llm_requested: Callable[[AgentContext], UsageLimitExceededError | None] = (
            meter.llm_requested)
        """An LLM request is about to go out; the error if it must not (a limit is crossed)."""

    def _see_both(self, event: AgentEvent, ctx: AgentContext) -> UsageLimitExceededError | None:
        assert self.spans is not None
        self.spans.see(event, ctx)
        return self.meter.see(event, ctx)

    def close(self) -> None:
        """The agent stopped: end its open spans."""
        if self.spans is not None:
            self.spans.close()


def build_watch(name: str, llm: LLM, usage: AgentUsage, tracing: Tracing | None) -> AgentWatch:
    """The watch of a new run of an agent: a fresh meter, and spans if tracing is on."""
    meter = usage.start_run(llm)
    tracer = (tracing or Tracing()).tracer()
    if tracer is None:
        return AgentWatch(meter)
    from autobyteus_like.tracing.spans import AgentSpans  # OpenTelemetry only when tracing

    settings = tracing or Tracing()
    return AgentWatch(meter, AgentSpans(tracer, name, llm.provider.value, model_name(llm),
                                        content=settings.content,
                                        directory=settings.directory))

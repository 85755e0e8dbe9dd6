"""The hooks of a new run of an agent: its session writer (first, so a step is
stored before anything else sees it), its usage meter with the run's limits, and its spans
when tracing is on. OpenTelemetry and the store are imported only when used."""

from __future__ import annotations

from typing import TYPE_CHECKING

from autobyteus_like.hooks._protocol import AgentHooks
from autobyteus_like.llm._base import LLM
from autobyteus_like.tracing._settings import Tracing
from autobyteus_like.usage._keeper import UsageKeeper
from autobyteus_like.usage._prices import model_name
from autobyteus_like.usage._report import AgentUsage

if TYPE_CHECKING:
    from autobyteus_like.store._restore import TurnSnapshot
    from autobyteus_like.store._session import Session

__all__ = ["session_writer", "usage_and_tracing_hooks"]


def usage_and_tracing_hooks(name: str, llm: LLM, usage: AgentUsage, tracing: Tracing | None,
                            keeper: UsageKeeper | None = None) -> list[AgentHooks]:
    """A meter for the run (counting on from what ``keeper`` kept of it), and spans if
    tracing is on."""
    hooks: list[AgentHooks] = [usage.start_run(llm, keeper)]
    settings = tracing or Tracing()
    tracer = settings.tracer()
    if tracer is not None:
        from autobyteus_like.tracing._spans import AgentSpans  # OpenTelemetry only when tracing

        hooks.append(AgentSpans(tracer, name, llm.provider.value, model_name(llm),
                                content=settings.content, directory=settings.directory))
    return hooks


def session_writer(session: Session, agent: str, snapshot: TurnSnapshot,
                   shaped: bool = False) -> AgentHooks:
    """The hooks through which ``agent`` writes its turns to ``session`` (after ``snapshot``)
    and records its model round trips there (``hooks/_round_trips.py``; ``shaped``: its LLM
    shapes each request and reports it as sent, so that is what is recorded)."""
    from autobyteus_like.hooks._composite import compose
    from autobyteus_like.hooks._round_trips import ForkKeys, RoundTripRecorder
    from autobyteus_like.hooks._session_writer import SessionWriter
    from autobyteus_like.store._fork import key_sessions

    session.claim_writer(agent)
    copied = key_sessions(session.store, session.name).get(agent)  # a fork's copied calls
    return compose([SessionWriter(session.store, session.name, agent,
                                  persisted=len(snapshot.messages)),
                    RoundTripRecorder(session.store, session.name, agent, shaped),
                    ForkKeys(copied) if copied else None])

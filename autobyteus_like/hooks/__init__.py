"""The turn's hooks: one protocol for everything that watches or persists a turn.

The turn machine (``handlers/``, driven by the agent actor) calls ``AgentHooks`` at each step of
a turn, unconditionally; the session writer (``hooks.session_writer``), the usage meter and its
limits (``usage``), the spans (``tracing``) and the session log (``agent.session_log``)
implement it. ``compose`` runs several; ``AgentHooks`` itself does nothing. A limit speaks
through ``claim`` (may one more LLM request or tool call be made now? a meter counts it there)
and ``verdict`` (is the run over?): each returns the error that ends the run, and the turn
machine ends it.
Implementations see the turn and its calls through ``TurnView`` and ``CallView`` (never the
agent's context), so nothing here or in them imports the turn machine.
"""

from autobyteus_like.hooks._composite import CompositeHooks, compose
from autobyteus_like.hooks._protocol import AgentHooks, CallKind, CallView, TurnView

__all__ = ["AgentHooks", "CallKind", "CallView", "CompositeHooks", "TurnView", "compose"]

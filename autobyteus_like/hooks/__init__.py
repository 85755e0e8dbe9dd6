"""The turn's hooks: one protocol for everything that watches, wraps or decides a turn.

The turn machine (``handlers/``, driven by the agent actor) calls ``AgentHooks`` at each step of
a turn, unconditionally; the session writer (``hooks.session_writer``), the usage meter and its
limits (``usage``), the spans (``tracing``) and the session log (``agent.session_log``)
implement it. ``compose`` runs several; ``AgentHooks`` itself does nothing. Three kinds of
point: watch (told a step happens), wrap (around a model request or a tool call, ``call_next``
style, on the thread that makes it: ``LLMCall``, ``ToolCall``) and admit (decisions: may a call
start while its response streams, may a request or call be made now and its ``release`` when it
then is not, must the run end). A limit speaks through ``claim`` and ``verdict``: each returns
the error that ends the run, and the turn machine ends it.
Implementations see the turn and its calls through ``TurnView`` and ``CallView`` (never the
agent's context), so nothing here or in them imports the turn machine.
"""

from autobyteus_like.hooks._composite import CompositeHooks, compose
from autobyteus_like.hooks._protocol import AgentHooks, CallKind, CallView, LLMCall, TurnView
from autobyteus_like.tools._middleware import ToolCall

__all__ = ["AgentHooks", "CallKind", "CallView", "CompositeHooks", "LLMCall", "ToolCall",
           "TurnView", "compose"]

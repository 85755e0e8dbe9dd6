"""The turn machine: one module per event handler, looked up by event type in a per-agent
registry, and the turn's state (``context``), its frozen environment (``environment``), the
effects a step yields for the actor to carry out (``effects``), steps (``turn_steps``), the one
results-to-message function (``results_message``), scheduling policy
(``scheduling``), the end of a run on a verdict (``run_end``), the checks where a turn would
end (``turn_verdict``: typed output, ``tool_retry_budget``) and resuming from a snapshot
(``turn_resume``: one pure function turns a ``TurnSnapshot`` into a ``ResumePlan``). Every
step calls the agent's hooks (``autobyteus_like.hooks``) unconditionally; only this package
and the agent's actor and its services import ``AgentContext``, and only agent/ imports this
package (tests/test_layers.py)."""

from autobyteus_like.events import (
    ApprovalDenied,
    ApprovalGranted,
    ConversationReset,
    LLMChunkReceived,
    LLMRequestFailed,
    LLMResponseCompleted,
    PendingToolInvocation,
    ToolResultReceived,
    UserMessageReceived,
)
from autobyteus_like.handlers._context import AgentContext, Slot, SlotState
from autobyteus_like.handlers._llm_response import LLMResponseHandler
from autobyteus_like.handlers._registry import EventHandler, HandlerRegistry
from autobyteus_like.handlers._tool_invocation import ToolInvocationHandler
from autobyteus_like.handlers._tool_result import ToolResultHandler
from autobyteus_like.handlers._user_message import UserMessageHandler

__all__ = [
    "AgentContext",
    "EventHandler",
    "HandlerRegistry",
    "LLMResponseHandler",
    "Slot",
    "SlotState",
    "ToolInvocationHandler",
    "ToolResultHandler",
    "UserMessageHandler",
    "default_handlers",
]


def default_handlers() -> HandlerRegistry:
    """A fresh registry with the built-in handlers."""
    llm, invocation = LLMResponseHandler(), ToolInvocationHandler()
    user = UserMessageHandler()
    return HandlerRegistry({
        UserMessageReceived: user,
        ConversationReset: user,
        LLMChunkReceived: llm,
        LLMResponseCompleted: llm,
        LLMRequestFailed: llm,
        PendingToolInvocation: invocation,
        ApprovalGranted: invocation,
        ApprovalDenied: invocation,
        ToolResultReceived: ToolResultHandler(),
    })

"""Event handlers: one module per handler, looked up by event type in a per-agent registry."""

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
from autobyteus_like.handlers.context import AgentContext, Slot, SlotState
from autobyteus_like.handlers.llm_response_handler import LLMResponseHandler
from autobyteus_like.handlers.registry import EventHandler, HandlerRegistry
from autobyteus_like.handlers.tool_invocation_handler import ToolInvocationHandler
from autobyteus_like.handlers.tool_result_handler import ToolResultHandler
from autobyteus_like.handlers.user_message_handler import UserMessageHandler

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

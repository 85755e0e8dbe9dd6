"""Conversation history: typed messages, saving and seeding them, and the processors that
bound what each request sends (a context budget)."""

from autobyteus_like.history._messages import (
    AssistantMessage,
    HistoryMessage,
    SystemMessage,
    ToolResultsMessage,
    UserMessage,
    history_from_json,
    history_to_json,
    parse_history,
)
from autobyteus_like.history._processors import (
    HistoryProcessor,
    ProcessorContext,
    keep_last_turns,
    summarize_older,
    token_budget,
)

__all__ = [
    "AssistantMessage",
    "HistoryMessage",
    "HistoryProcessor",
    "ProcessorContext",
    "SystemMessage",
    "ToolResultsMessage",
    "UserMessage",
    "history_from_json",
    "history_to_json",
    "keep_last_turns",
    "parse_history",
    "summarize_older",
    "token_budget",
]

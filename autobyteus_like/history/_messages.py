"""The conversation as typed messages: what ``agent.history`` returns, what seeds an agent,
and what history processors read and return.

An assistant message keeps its text exactly as the model wrote it (in a text format, the
calls' markup included) and its calls as data, with the format it was written in; a results
message keeps each call's result (``status``: success or failure) and, in a text format, the
text the model was sent. So a history replays unchanged to an agent of the same format and is
re-rendered for one of another (``replay``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from autobyteus_like.errors import ConfigError
from autobyteus_like.tools._invocation import ToolInvocation, ToolResult

__all__ = ["AssistantMessage", "HistoryMessage", "SystemMessage", "ToolResultsMessage",
           "UserMessage", "history_from_json", "history_to_json", "parse_history"]


class SystemMessage(BaseModel):
    """The system prompt the model was given (the tools' manifest included)."""

    model_config = ConfigDict(frozen=True)
    role: Literal["system"] = "system"
    content: str


class UserMessage(BaseModel):
    """A message to the model: the user's, a teammate's, or a note from the agent."""

    model_config = ConfigDict(frozen=True)
    role: Literal["user"] = "user"
    content: str


class AssistantMessage(BaseModel):
    """A response: its text as written and the calls it made, in order."""

    model_config = ConfigDict(frozen=True)
    role: Literal["assistant"] = "assistant"
    content: str = ""
    tool_calls: tuple[ToolInvocation, ...] = ()
    format: str | None = None
    """The tool format the text was written in (None: unknown; the text is replayed as is)."""


class ToolResultsMessage(BaseModel):
    """The results of one response's calls, in invocation order."""

    model_config = ConfigDict(frozen=True)
    role: Literal["tool"] = "tool"
    results: tuple[ToolResult, ...]
    content: str = ""
    """The results as the model read them, in a text format ("" with native calling)."""
    format: str | None = None


HistoryMessage = Annotated[SystemMessage | UserMessage | AssistantMessage | ToolResultsMessage,
                           Field(discriminator="role")]
"""One message of a conversation, told apart by ``role``."""

_ADAPTER: TypeAdapter[list[HistoryMessage]] = TypeAdapter(list[HistoryMessage])


def parse_history(data: object) -> list[HistoryMessage]:
    """Messages from typed messages or their JSON-like dicts (``ConfigError`` naming each
    message and field that is wrong otherwise)."""
    if isinstance(data, Sequence) and not isinstance(data, str) and all(
            isinstance(item, SystemMessage | UserMessage | AssistantMessage | ToolResultsMessage)
            for item in data):
        return list(data)
    try:
        return _ADAPTER.validate_python(data)
    except ValidationError as exc:
        raise _located(exc) from None


def _located(exc: ValidationError) -> ConfigError:
    problems = []
    for error in exc.errors(include_url=False):
        index, *rest = error["loc"] or ("?",)
        where = f"history[{index}]" + "".join(f".{part}" for part in rest[1:])
        problems.append(f"{where}: {error['msg']}")
    return ConfigError("history", problems)


def history_to_json(messages: Sequence[HistoryMessage], indent: int | None = None) -> str:
    """The conversation as JSON text (``history_from_json`` reads it back)."""
    return _ADAPTER.dump_json(list(messages), indent=indent).decode()


def history_from_json(text: str | bytes) -> list[HistoryMessage]:
    """A conversation from ``history_to_json``'s text (``ConfigError`` saying where it is
    wrong otherwise)."""
    try:
        return _ADAPTER.validate_json(text)
    except ValidationError as exc:
        raise _located(exc) from None

"""Between the agent's own conversation (``llm.messages.Message``) and typed history.

``to_history`` reads the conversation an agent keeps; ``from_history`` writes a typed history
as the conversation an agent of a given format keeps, re-rendering calls and results that were
written in another format: the calls in the target format's own syntax (or as native calls),
the results as that format's results. The text around calls written in a text format is found
by that format's parser, so no markup of one format reaches a model taught another.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from autobyteus_like._frozen_values import builder
from autobyteus_like.formats import NATIVE, ToolFormat
from autobyteus_like.history._messages import (
    AssistantMessage,
    HistoryMessage,
    SystemMessage,
    ToolResultsMessage,
    UserMessage,
)
from autobyteus_like.llm._messages import Message
from autobyteus_like.tools._invocation import ToolInvocation

__all__ = ["from_history", "history_problems", "sendable", "text_only", "to_history"]


def to_history(messages: Iterable[Message], format_name: str,
               system_prompt: str | None = None) -> list[HistoryMessage]:
    """An agent's conversation as typed messages (the system prompt first, when given)."""
    history: list[HistoryMessage] = []
    if system_prompt is not None:
        history.append(SystemMessage(content=system_prompt))
    for message in messages:
        if message.role == "assistant":
            history.append(AssistantMessage(content=message.content,
                                            tool_calls=message.tool_calls, format=format_name))
        elif message.tool_results or message.role == "tool":
            history.append(ToolResultsMessage(
                results=message.tool_results, format=format_name,
                content="" if message.role == "tool" else message.content))
        else:
            history.append(UserMessage(content=message.content))
    return history


def from_history(history: Sequence[HistoryMessage], tool_format: ToolFormat
                 ) -> tuple[str | None, list[Message]]:
    """A typed history as the conversation of an agent speaking ``tool_format``, and the
    system prompt it holds (None when it holds none)."""
    native = tool_format.name == NATIVE
    system: str | None = None
    calls: dict[str, ToolInvocation] = {}
    messages: list[Message] = []
    for item in history:
        if isinstance(item, SystemMessage):
            system = item.content if system is None else system
        elif isinstance(item, UserMessage):
            messages.append(Message("user", item.content))
        elif isinstance(item, AssistantMessage):
            calls.update((call.id, call) for call in item.tool_calls)
            messages.append(_assistant(item, tool_format, native))
        else:
            if native:
                messages.append(Message("tool", "", tool_results=item.results))
            elif item.format == tool_format.name and item.content:
                messages.append(Message("user", item.content, tool_results=item.results))
            else:
                pairs = [(calls.get(result.invocation_id) or ToolInvocation(
                    id=result.invocation_id, name=result.tool_name), result)
                    for result in item.results]
                messages.append(Message("user", tool_format.formatter.render_results(pairs),
                                        tool_results=item.results))
    return system, messages


def _assistant(item: AssistantMessage, tool_format: ToolFormat, native: bool) -> Message:
    if not item.tool_calls or item.format == tool_format.name:
        return Message("assistant", item.content, tool_calls=item.tool_calls)
    prose = _prose(item.content, item.format)
    if native:
        return Message("assistant", prose, tool_calls=item.tool_calls)
    written = [tool_format.formatter.format_call(call.name, call.arguments, call.id)
               for call in item.tool_calls]
    text = "\n\n".join([prose, *written] if prose else written)
    return Message("assistant", text, tool_calls=item.tool_calls)


def _prose(content: str, format_name: str | None) -> str:
    """The text around the calls of a response written in ``format_name``."""
    if format_name is None or format_name == NATIVE:
        return content.strip()
    from autobyteus_like.formats._by_name import parse_tool_calls

    try:
        return parse_tool_calls(content, format_name).text.strip()
    except ValueError:  # a format this process does not know: its text as written
        return content.strip()


def history_problems(history: Sequence[HistoryMessage]) -> list[str]:
    """What keeps a history from being sent to a model, each located as ``history[i]``: a
    call with no result right after it, a result for no call before it (a provider refuses
    both with native calling)."""
    problems: list[str] = []
    waiting: dict[str, int] = {}  # call id -> where it was made
    for index, item in enumerate(history):
        if isinstance(item, ToolResultsMessage):
            for result in item.results:
                if waiting.pop(result.invocation_id, None) is None:
                    problems.append(f"history[{index}]: the result for "
                                    f"{result.invocation_id!r} follows no call of that id")
        if waiting and not isinstance(item, ToolResultsMessage):
            problems += [f"history[{where}]: the call {call_id!r} has no result after it"
                         for call_id, where in waiting.items()]
            waiting = {}
        if isinstance(item, AssistantMessage):
            waiting = {call.id: index for call in item.tool_calls}
    problems += [f"history[{where}]: the call {call_id!r} has no result after it"
                 for call_id, where in waiting.items()]
    return problems


def sendable(messages: Sequence[Message], native: bool) -> tuple[Message, ...]:
    """The conversation as a text-format model is sent it: calls and results only as the
    text it read (their data is for history, not for a provider's native fields)."""
    if native:
        return tuple(messages)
    return tuple([text_only(m) if m.tool_calls or m.tool_results else m for m in messages])


_message = builder(Message)


def text_only(message: Message) -> Message:
    """``message`` without its calls and results as data (``sendable``, for one message)."""
    return _message(message.role, message.content, images=message.images,
                    carried=message.carried)

"""History processors: functions over the message list, run before each request.

A processor takes the conversation as typed messages (the system prompt first) and returns
what the model is sent; it may also take a ``ProcessorContext`` as second argument (which
model, whether the provider just refused the request as too long). The agent's own
conversation, and a session's record of it, stay whole: processors shape only what
is sent.

The built-in ones cut at turn boundaries (a turn begins with a user message; a call's results
always follow the call within its turn), so a call is never separated from its result, and
they never drop the system prompt or the current turn.
"""

from __future__ import annotations

import hashlib
import inspect
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from autobyteus_like.history._messages import (
    AssistantMessage,
    HistoryMessage,
    SystemMessage,
    ToolResultsMessage,
    UserMessage,
)
from autobyteus_like.history._tokens import (
    MESSAGE_OVERHEAD,
    TokenCounter,
    estimate_tokens,
    message_text,
    openai_counter,
    token_counter,
)
from autobyteus_like.llm._base import LLM
from autobyteus_like.llm._messages import LLMRequest, Message

__all__ = ["HistoryProcessor", "ProcessorContext", "keep_last_turns", "run_processors",
           "split_turns", "summarize_older", "token_budget"]


@dataclass(frozen=True)
class ProcessorContext:
    """What a processor may want to know about the request it shapes."""

    agent: str
    provider: str | None = None
    model: str | None = None
    overflowed: bool = False
    """The provider refused the request as too long: this is the one retry, cut harder."""
    cancel: threading.Event = field(default_factory=threading.Event)
    """Set when the agent stops (a processor that calls a model passes it on)."""


HistoryProcessor = Callable[..., list[HistoryMessage]]
"""``fn(messages)`` or ``fn(messages, context)`` -> the messages to send."""


def _takes_context(processor: HistoryProcessor) -> bool:
    try:
        parameters = inspect.signature(processor).parameters.values()
    except (TypeError, ValueError):
        return False
    positional = [p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return len(positional) >= 2 or any(p.kind is p.VAR_POSITIONAL for p in parameters)


def run_processors(processors: Sequence[HistoryProcessor], messages: list[HistoryMessage],
                   context: ProcessorContext) -> list[HistoryMessage]:
    """Each processor in turn over the result of the one before."""
    for processor in processors:
        result = processor(messages, context) if _takes_context(processor) else processor(
            messages)
        if not isinstance(result, list) or not all(
                isinstance(m, SystemMessage | UserMessage | AssistantMessage | ToolResultsMessage)
                for m in result):
            raise TypeError(f"the history processor {describe(processor)} returned "
                            f"{type(result).__name__}, not a list of history messages")
        messages = result
    return messages


def split_turns(messages: Sequence[HistoryMessage]
                ) -> tuple[list[HistoryMessage], list[list[HistoryMessage]]]:
    """The system messages at the head, and the rest cut into turns (each begins with a user
    message, except a first one that does not)."""
    head: list[HistoryMessage] = []
    turns: list[list[HistoryMessage]] = []
    for message in messages:
        if isinstance(message, SystemMessage) and not turns:
            head.append(message)
        elif isinstance(message, UserMessage) or not turns:
            turns.append([message])
        else:
            turns[-1].append(message)
    return head, turns


def keep_last_turns(n: int) -> HistoryProcessor:
    """Send only the last ``n`` turns (the current one included), and the system prompt. After
    a context overflow, half as many (at least the current turn)."""
    if n < 1:
        raise ValueError("keep_last_turns needs n >= 1 (the current turn is always sent)")

    def keep(messages: list[HistoryMessage], context: ProcessorContext) -> list[HistoryMessage]:
        head, turns = split_turns(messages)
        kept = max(1, n // 2) if context.overflowed else n
        return head + [message for turn in turns[-kept:] for message in turn]

    keep.__name__ = f"keep_last_turns({n})"
    return keep


class _Budget:
    """``token_budget``: drop the oldest turns until the rest fits."""

    def __init__(self, max_tokens: int, counter: TokenCounter | str) -> None:
        if max_tokens < 1:
            raise ValueError("token_budget needs max_tokens >= 1")
        self.max_tokens = max_tokens
        self._counter = counter
        self._counts: dict[int, tuple[HistoryMessage, int]] = {}
        self.__name__ = f"token_budget({max_tokens})"

    def counter_for(self, context: ProcessorContext) -> TokenCounter:
        if callable(self._counter):
            return self._counter
        if self._counter == "estimate":
            return estimate_tokens
        if self._counter == "openai":
            return openai_counter(context.model)
        return token_counter(context.provider, context.model)

    def __call__(self, messages: list[HistoryMessage],
                 context: ProcessorContext) -> list[HistoryMessage]:
        count = self.counter_for(context)
        budget = self.max_tokens // 2 if context.overflowed else self.max_tokens
        head, turns = split_turns(messages)
        total = sum(self.tokens(m, count) for m in head)
        first = len(turns)
        while first > 0:  # from the newest turn back, while they fit (the current one always)
            size = sum(self.tokens(m, count) for m in turns[first - 1])
            if total + size > budget and first < len(turns):
                break
            total += size
            first -= 1
        return head + [message for turn in turns[first:] for message in turn]

    def tokens(self, message: HistoryMessage, count: TokenCounter) -> int:
        """A message's tokens, remembered (a long chat counts each message once)."""
        known = self._counts.get(id(message))
        if known is None or known[0] is not message:
            if len(self._counts) > 50_000:
                self._counts.clear()
            known = self._counts[id(message)] = (
                message, count(message_text(message)) + MESSAGE_OVERHEAD)
        return known[1]


def token_budget(max_tokens: int, *, counter: TokenCounter | str = "auto") -> HistoryProcessor:
    """Send the system prompt, the current turn, and as many of the latest turns before it as
    fit in ``max_tokens`` (whole turns only). ``counter``: "auto" (exact for OpenAI-family
    models with bpe-openai, an estimate otherwise: see ``history.tokens``), "openai",
    "estimate", or a function of a text. After a context overflow, half the budget."""
    return _Budget(max_tokens, counter)


_SUMMARY_PROMPT = (
    "Summarize the conversation below for the assistant who will continue it. Keep every "
    "fact, decision, name, number, file and open task it will need; leave out small talk. "
    "Answer with the summary only."
)
SUMMARY_HEADING = "Summary of the earlier conversation:"


class _Summarizer:
    """``summarize_older``: turns before the last ``keep_last`` become one summary message,
    written by ``llm``; the summary is extended, not rewritten, as the conversation grows."""

    def __init__(self, llm: LLM, keep_last: int) -> None:
        if keep_last < 1:
            raise ValueError("summarize_older needs keep_last >= 1")
        self.llm = llm
        self.keep_last = keep_last
        self._lock = threading.Lock()
        self._summarized: list[str] = []  # digests of the messages the summary covers
        self._summary = ""
        self.__name__ = f"summarize_older(keep_last={keep_last})"

    def __call__(self, messages: list[HistoryMessage],
                 context: ProcessorContext) -> list[HistoryMessage]:
        head, turns = split_turns(messages)
        keep = max(1, self.keep_last // 2) if context.overflowed else self.keep_last
        if len(turns) <= keep:
            return messages
        older = [message for turn in turns[:-keep] for message in turn]
        summary = self._summary_of(older, context)
        recent = [message for turn in turns[-keep:] for message in turn]
        return [*head, UserMessage(content=f"{SUMMARY_HEADING}\n{summary}"), *recent]

    def _summary_of(self, older: list[HistoryMessage], context: ProcessorContext) -> str:
        digests = [_digest(message) for message in older]
        with self._lock:
            done = len(self._summarized)
            if digests[:done] == self._summarized and done:
                base, new = self._summary, older[done:]
            else:
                base, new = "", older
            if not new:
                return self._summary
            transcript = "\n\n".join(_line(message) for message in new)
            if base:
                transcript = f"{SUMMARY_HEADING}\n{base}\n\nWhat followed:\n\n{transcript}"
            request = LLMRequest(_SUMMARY_PROMPT, (Message("user", transcript),))
            text = "".join(chunk.text for chunk in self.llm.stream(request, context.cancel))
            self._summary, self._summarized = text.strip(), digests
            return self._summary


def _digest(message: HistoryMessage) -> str:
    return hashlib.blake2b(message.model_dump_json().encode(), digest_size=12).hexdigest()


def _line(message: HistoryMessage) -> str:
    if isinstance(message, AssistantMessage):
        calls = "".join(f"\n[called {c.name}({c.arguments})]" for c in message.tool_calls)
        return f"assistant: {message.content}{calls}"
    if isinstance(message, ToolResultsMessage):
        return "results: " + "; ".join(
            f"{r.tool_name} -> {r.content if r.error is None else r.error.message}"
            for r in message.results)
    return f"{message.role}: {message.content}"


def summarize_older(llm: LLM, keep_last: int = 4) -> HistoryProcessor:
    """Send the last ``keep_last`` turns as they are and everything before them as one summary
    that ``llm`` writes (on the agent's LLM thread, never on the agent's own). After a context
    overflow, half as many recent turns."""
    return _Summarizer(llm, keep_last)


def describe(processor: Any) -> str:
    """A processor's name for messages."""
    return str(getattr(processor, "__name__", repr(processor)))

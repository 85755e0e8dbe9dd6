"""ShapedLLM: the agent's LLM, sent the conversation as it should be sent.

It sits at the LLM seam, on the agent's LLM thread (a processor that calls a model, or counts
the tokens of a long chat, never holds up the agent's own thread): the history processors
shape each request, and a text-format model is sent calls and results only as the text it
read. A provider that refuses a request as too long for the model's context gets it once
more, with the processors told so (they cut harder); a second refusal is the turn's error.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator, Sequence
from itertools import chain
from typing import Any

from loguru import logger

from autobyteus_like._frozen_values import builder
from autobyteus_like.errors import LLMError
from autobyteus_like.formats import NATIVE, ToolFormat
from autobyteus_like.history._messages import HistoryMessage, SystemMessage
from autobyteus_like.history._processors import HistoryProcessor, ProcessorContext, run_processors
from autobyteus_like.history._replay import from_history, text_only, to_history
from autobyteus_like.llm._base import LLM
from autobyteus_like.llm._messages import LLMChunk, LLMRequest, Message
from autobyteus_like.llm._sent_requests import report_sent

__all__ = ["ShapedLLM", "is_context_overflow"]

_request = builder(LLMRequest)

_OVERFLOW = re.compile(
    r"context[_ ]length[_ ]exceeded|maximum context length|context window|prompt is too long"
    r"|too many (?:input )?tokens|input token count .* exceeds|exceeds the (?:maximum|context)"
    r"|reduce the length of the messages|request too large", re.IGNORECASE)


def is_context_overflow(error: LLMError) -> bool:
    """Whether a provider refused the request as longer than the model's context."""
    text = f"{error.server_message or ''} {error.message}"
    return error.status in (400, 413, 422, None) and bool(_OVERFLOW.search(text))


class ShapedLLM(LLM):
    """Wraps the agent's LLM; ``provider`` and ``model`` are the wrapped one's."""

    def __init__(self, inner: LLM, agent: str, tool_format: ToolFormat,
                 processors: Sequence[HistoryProcessor] = (),
                 response_schema: dict[str, Any] | None = None) -> None:
        self.inner = inner
        self.provider = inner.provider
        self.model: str | None = getattr(inner, "model", None)
        self.agent = agent
        self.format = tool_format
        self.native = tool_format.name == NATIVE
        self.processors = tuple(processors)
        self.response_schema = response_schema
        self._cache: dict[int, tuple[Message, HistoryMessage]] = {}
        self._origin: dict[int, tuple[Message, HistoryMessage]] = {}
        self._stripped: dict[int, tuple[Message, Message]] = {}
        self._last_sent: tuple[tuple[Message, ...], tuple[Message, ...]] = ((), ())
        """The messages of the last request and what was sent for them."""

    def shape(self, request: LLMRequest, cancel: threading.Event,
              overflowed: bool = False) -> LLMRequest:
        """The request as it is sent."""
        system, messages = request.system_prompt, request.messages
        if self.processors:
            context = ProcessorContext(self.agent, self.provider.value, self.model, overflowed,
                                       cancel)
            try:
                history = run_processors(self.processors, self._typed(system, messages),
                                         context)
            except Exception as exc:  # the turn's error says which processor, never a crash
                raise LLMError(f"agent {self.agent!r}: a history processor failed: "
                               f"{type(exc).__name__}: {exc}") from exc
            kept_system, messages = self._untyped(history)
            system = kept_system if kept_system is not None else system
        # built directly (dataclasses.replace walks every field in Python, twice a turn);
        # tests/history/test_outgoing.py checks that no field of the request is lost
        shaped = _request(system, self._sendable(messages), request.tools, request.rules,
                          self.response_schema or request.response_schema)
        report_sent(shaped)  # a session records the request as the model sees it
        return shaped

    def _sendable(self, messages: Sequence[Message]) -> tuple[Message, ...]:
        """``sendable``, each text-only copy made once for a long chat. A request usually
        repeats the last one's messages and adds a few: those are taken from the last
        request's as they were (compared at C speed: the same objects, or equal ones, whose
        copies are equal too)."""
        if self.native:
            return tuple(messages)
        messages = tuple(messages)
        last_in, last_out = self._last_sent
        kept = len(last_in)
        try:
            same = kept > 0 and messages[:kept] == last_in
        except Exception:  # a value inside that cannot be compared: the long way
            same = False
        sent = list(last_out) if same else []
        kept = kept if same else 0
        stripped = self._stripped
        if len(stripped) > 2 * len(messages) + 64:
            stripped.clear()
        for message in messages[kept:]:
            if message.tool_calls or message.tool_results:
                known = stripped.get(id(message))
                if known is None or known[0] is not message:
                    known = stripped[id(message)] = (message, text_only(message))
                message = known[1]
            sent.append(message)
        out = tuple(sent)
        self._last_sent = (messages, out)
        return out

    # A long chat is shaped before each request: each message is made typed once (the same
    # typed object every time, so processors can remember what they worked out about it) and
    # a typed message the processors kept is sent as the very message it came from.

    def _typed(self, system: str, messages: Sequence[Message]) -> list[HistoryMessage]:
        cache = self._cache
        if len(cache) > 4 * len(messages) + 64:
            cache.clear()
        history: list[HistoryMessage] = to_history((), self.format.name, system)
        for message in messages:
            known = cache.get(id(message))
            if known is None or known[0] is not message:
                typed = to_history((message,), self.format.name)[0]
                known = cache[id(message)] = (message, typed)
                self._origin[id(typed)] = known
            history.append(known[1])
        return history

    def _untyped(self, history: list[HistoryMessage]) -> tuple[str | None, tuple[Message, ...]]:
        origin = self._origin
        if len(origin) > 2 * len(self._cache) + 64:  # those of messages no longer held
            live = {id(typed) for _, typed in self._cache.values()}
            self._origin = origin = {key: value for key, value in origin.items()
                                     if key in live}
        system = None
        messages: list[Message] = []
        for typed in history:
            known = origin.get(id(typed))
            if known is not None and known[1] is typed:
                messages.append(known[0])
            elif isinstance(typed, SystemMessage):
                system = typed.content if system is None else system
            else:  # a processor's own message (a summary): the long way, for all of them
                kept_system, converted = from_history(history, self.format)
                return kept_system, tuple(converted)
        return system, tuple(messages)

    def stream(self, request: LLMRequest, cancel: threading.Event) -> Iterator[LLMChunk]:
        if not self.processors:  # nothing to retry with: the model's own stream, no layer
            return self.inner.stream(self.shape(request, cancel), cancel)
        return self._retried(request, cancel)

    def _retried(self, request: LLMRequest, cancel: threading.Event) -> Iterator[LLMChunk]:
        try:
            chunks = self._open(request, cancel, overflowed=False)
        except LLMError as exc:
            if not is_context_overflow(exc):
                raise
            logger.info("agent {}: the request was too long for the model ({}); shaping it "
                        "again and retrying once", self.agent, exc.message)
            chunks = self._open(request, cancel, overflowed=True)
        yield from chunks

    def _open(self, request: LLMRequest, cancel: threading.Event,
              overflowed: bool) -> Iterator[LLMChunk]:
        """The response's chunks; a refusal comes with (before) the first one, so it is
        raised here."""
        stream = iter(self.inner.stream(self.shape(request, cancel, overflowed), cancel))
        first = next(stream, None)
        return chain([first], stream) if first is not None else iter(())

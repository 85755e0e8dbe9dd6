"""``tool_format: auto``: native tool calling where the provider and server handle it, and a
text format (XML first, then JSON) for the rest of the LLM's life where they do not.

The agent's turn always speaks native (tools declared, calls as ``NativeToolCall``, results as
``tool`` messages); this LLM translates. It switches to text when a request with tools fails in
a way that says the server cannot take them (a 4xx answer other than auth, not-found or
rate limits, or a 5xx whose message names tools or a missing feature: an outage is no
reason; an OpenAI-compatible server that cannot stream them is first asked unstreamed by
the wire itself), or when the member's ``tool_choice`` requires a call and a reply brings none
before native calls have worked once. In a text format the manifest is added to the system
prompt, the history is written in that format, and the reply is read by the format's parser:
prose streams on as text, each call becomes a ``NativeToolCall`` (one that cannot be read
carries its ``ParseErrorInfo``, so the model is told in the format's own terms). A required
call missing from an XML reply moves on to JSON. Each switch is reported once as an
``Adaptation`` chunk (the agent's ``LLMAdapted`` event and its span say which and why).

What is known of the model is kept per (provider, base URL, model) in the ``model_formats``
table (``store._model_formats``: the session store's, else the cache file's): the first request
with tools starts from the eval's verdict, else from the format ``auto`` learned on that server
(announced as an ``Adaptation`` too); each move to a text format is remembered, and a learned
format that then fails is dropped. A scripted LLM has no entry: it keeps its declared format.

While a required call has not yet been seen to work in the current format, a reply is held
back until it is known to hold a call, so a reply that is redone never shows twice.
"""

from __future__ import annotations

import dataclasses
import re
import threading
from collections.abc import Generator, Iterator, Sequence

from autobyteus_like.agent._format_memory import FormatMemory, model_key
from autobyteus_like.agent._ruled_llm import with_rules
from autobyteus_like.agent._text_calls import call_chunks, text_request_for
from autobyteus_like.errors import LLMError
from autobyteus_like.formats import NATIVE, builtin_format
from autobyteus_like.llm._base import LLM, WrappingLLM
from autobyteus_like.llm._messages import (
    Adaptation,
    LLMChunk,
    LLMRequest,
    TokenUsage,
)
from autobyteus_like.parsers._call_policy import CallPolicy
from autobyteus_like.store._model_formats import ModelFormats
from autobyteus_like.tools._call_rules import CallRules
from autobyteus_like.tools._invocation_ids import InvocationIdAllocator
from autobyteus_like.tools._registry import ToolRegistry

__all__ = ["TEXT_FALLBACKS", "FormatAdaptingLLM"]

TEXT_FALLBACKS = ("xml", "json")
"""The text formats tried, in order, once native calls do not work."""

_NOT_ABOUT_TOOLS = frozenset({401, 403, 404, 408, 409, 429})
"""Statuses that say nothing about tools (a key, a model name, a rate limit)."""

_SAYS_TOOLS = re.compile(r"\btool|\bfunction|not (?:yet )?(?:supported|implemented)|"
                        r"unsupported|does(?: not|n't) support|grammar|chat.?format",
                        re.IGNORECASE)
"""What a server's error says when it is about the tools (a 5xx must say so: an outage is
not a reason to give up native calls, nor to remember a text format)."""


def _about_tools(error: LLMError) -> bool:
    """Whether a failed request with tools says the server cannot take them: a 4xx other
    than auth, not-found and rate limits, or a 5xx whose message names tools or a missing
    feature."""
    if error.status is None or error.status in _NOT_ABOUT_TOOLS:
        return False
    if error.status < 500:
        return True
    return _SAYS_TOOLS.search(error.server_message or "") is not None


Chunks = Generator[LLMChunk, None, str | None]
"""Yields a reply's chunks; returns why the format must change (None: it need not)."""


class FormatAdaptingLLM(WrappingLLM):
    """``inner`` with ``rules``, native first, switching to a text format when it must."""

    def __init__(self, inner: LLM, rules: CallRules, *,
                 formats: ModelFormats | None = None, remember: bool = True) -> None:
        super().__init__(inner)
        self.rules = rules
        self.formats = formats
        """Where what is known of the model is kept (None: the cache file's table)."""
        self.remember = remember
        """False: start native and keep nothing (the table is neither read nor written)."""
        self.text_format: str | None = None
        """The text format in use (None: native)."""
        self._proven = False
        self._policy: CallPolicy | None = None
        self._carried: TokenUsage | None = None
        self._memory: FormatMemory | None = None
        self._started = False
        self._remembered: str | None = None
        """The learned format this LLM started from, until it fails."""

    def stream(self, request: LLMRequest, cancel: threading.Event) -> Iterator[LLMChunk]:
        request = with_rules(request, self.rules)
        if not request.tools:
            yield from self.inner.stream(request, cancel)
            return
        if not self._started:
            self._started = True
            yield from self._start()
        if self.text_format is None:
            reason = yield from self._native(request, cancel)
        else:
            reason = yield from self._text(request, cancel)
        while reason is not None and not cancel.is_set():
            following = self._following()
            if following is None:
                break
            self._use(following)
            self._remembered = None
            if self._memory is not None:
                self._memory.learned(following, reason)
            yield LLMChunk(adapted=Adaptation("tool_format", following, reason))
            reason = yield from self._text(request, cancel)

    def _start(self) -> Iterator[LLMChunk]:
        """Start from what the table knows of this model (announced when it is text)."""
        key = model_key(self.inner) if self.remember else None
        if key is None:
            return
        self._memory = FormatMemory(self.formats or ModelFormats.cached(), key)
        start = self._memory.start()
        if start is None or start[0] == NATIVE:
            return
        tool_format, why = start
        try:
            self._use(tool_format)
        except ValueError:  # a format this release does not know: start native
            self.text_format = None
            return
        if why.startswith("learned"):
            self._remembered = tool_format
        yield LLMChunk(adapted=Adaptation("tool_format", tool_format, why))

    def _use(self, tool_format: str) -> None:
        policy = CallPolicy(builtin_format(tool_format).parser_factory, self.rules)
        self.text_format, self._proven, self._policy = tool_format, False, policy

    def _following(self) -> str | None:
        """The text format tried after the current one (None: none is left)."""
        if self.text_format not in TEXT_FALLBACKS:
            return TEXT_FALLBACKS[0]
        position = TEXT_FALLBACKS.index(self.text_format) + 1
        return TEXT_FALLBACKS[position] if position < len(TEXT_FALLBACKS) else None

    def _forced(self, request: LLMRequest) -> bool:
        """Whether this reply is held back: it must call, and calls are not yet seen to
        work in the current format."""
        choice = request.rules.choice
        return choice is not None and choice.forces_a_call and not self._proven

    def _native(self, request: LLMRequest, cancel: threading.Event) -> Chunks:
        held: list[LLMChunk] = []
        hold, shown, called = self._forced(request), False, False
        try:
            for chunk in self.inner.stream(request, cancel):
                called = called or bool(chunk.tool_calls)
                if chunk.adapted is None and hold and not called:
                    held.append(chunk)
                    continue
                shown = shown or chunk.adapted is None
                yield from self._released(held)
                held = []
                yield self._with_carried(chunk)
        except LLMError as error:
            if shown or cancel.is_set() or not _about_tools(error):
                raise
            return f"native tool calling failed on this server ({error.message})"
        if called:
            self._proven = True
        elif hold and not cancel.is_set():
            self._carry(held)
            return ("the model answered without the tool call its tool_choice requires, "
                    "on native tool calling")
        yield from self._released(held)
        return None

    def _text(self, request: LLMRequest, cancel: threading.Event) -> Chunks:
        assert self.text_format is not None and self._policy is not None
        parser = self._policy(ToolRegistry(request.tools), InvocationIdAllocator())
        text_request = text_request_for(request, self.text_format, self.rules)
        held: list[LLMChunk] = []
        endings: list[LLMChunk] = []
        hold, called = self._forced(request), False
        for chunk in self.inner.stream(text_request, cancel):
            if chunk.adapted is not None:
                yield chunk
                continue
            if chunk.text:
                out = call_chunks(parser.feed(chunk.text))
                called = called or any(c.tool_calls for c in out)
                held.extend(out)
            if chunk.usage is not None or chunk.finish_reason is not None:
                endings.append(dataclasses.replace(chunk, text="", tool_calls=(), final=False))
            if not hold or called:
                yield from self._released(held)
                held = []
        if cancel.is_set():
            return None
        held.extend(call_chunks(parser.finish()))
        held.extend(endings)
        if self._policy.missed and not self._proven and self._remembered is not None:
            assert self._memory is not None  # a remembered format came from it
            self._memory.failed(self._remembered)
            self._remembered = None
        if self._policy.missed and not self._proven and self._following() is not None:
            self._policy.asked = False
            self._carry(held)
            return (f"the model answered without the tool call its tool_choice requires, in "
                    f"the {self.text_format} format")
        if any(c.tool_calls for c in held) or called:
            self._proven = True
        yield from self._released(held)
        return None

    def _carry(self, chunks: Sequence[LLMChunk]) -> None:
        """Keep the usage of a reply that is redone: it is added to the next reply's."""
        for chunk in chunks:
            if chunk.usage is not None:
                self._carried = _sum(self._carried, chunk.usage)

    def _released(self, chunks: Sequence[LLMChunk]) -> Iterator[LLMChunk]:
        for chunk in chunks:
            yield self._with_carried(chunk)

    def _with_carried(self, chunk: LLMChunk) -> LLMChunk:
        if chunk.usage is None or self._carried is None:
            return chunk
        carried, self._carried = self._carried, None
        return dataclasses.replace(chunk, usage=_sum(carried, chunk.usage))


def _sum(first: TokenUsage | None, second: TokenUsage) -> TokenUsage:
    if first is None:
        return second

    def plus(a: int | None, b: int | None) -> int | None:
        return None if a is None and b is None else (a or 0) + (b or 0)

    return TokenUsage(first.input_tokens + second.input_tokens,
                      first.output_tokens + second.output_tokens,
                      plus(first.reasoning_tokens, second.reasoning_tokens),
                      plus(first.cached_input_tokens, second.cached_input_tokens))

"""What the proxy does with a request that has tools: send it upstream in the chosen format and
read the reply back as native chunks (prose as text, each call as a ``NativeToolCall`` as soon
as its markup closes).

- ``native``: the tools declared to the upstream as they came.
- a text format (``xml``, ``json``, ...): the manifest in the system prompt, earlier calls and
  results written in the format, the reply read by the format's parser (``agent._text_calls``).
- ``auto``: ``FormatAdaptingLLM`` (the stored eval verdict, else what ``auto`` learned on that
  server, else native with a switch to a text format when the server fails it), remembering
  what it learns in the ``model_formats`` table.

A call that cannot be read is never dropped: it is a ``MalformedCallError`` for the client, or
(``reask``) the model is told what was wrong and asked once more."""

from __future__ import annotations

import threading
from collections.abc import Iterator

from autobyteus_like.agent._format_adapting import FormatAdaptingLLM
from autobyteus_like.agent._text_calls import call_chunks, text_request_for
from autobyteus_like.errors import MalformedCallError
from autobyteus_like.formats import NATIVE, builtin_format
from autobyteus_like.llm._base import LLM
from autobyteus_like.llm._messages import LLMChunk, LLMRequest, Message, NativeToolCall
from autobyteus_like.parsers._call_policy import CallPolicy
from autobyteus_like.store._model_formats import ModelFormats
from autobyteus_like.tools._invocation_ids import InvocationIdAllocator
from autobyteus_like.tools._registry import ToolRegistry

__all__ = ["AUTO", "reply_chunks"]

AUTO = "auto"



def _in_format(request: LLMRequest, tool_format: str, upstream: LLM, formats: ModelFormats,
               cancel: threading.Event, compact: bool) -> Iterator[LLMChunk]:
    if tool_format == AUTO:
        yield from FormatAdaptingLLM(upstream, request.rules, formats=formats).stream(
            request, cancel)
        return
    if tool_format == NATIVE:
        yield from upstream.stream(request, cancel)
        return
    policy = CallPolicy(builtin_format(tool_format).parser_factory, request.rules)
    parser = policy(ToolRegistry(request.tools), InvocationIdAllocator())
    usage, finish = None, None
    text_request = text_request_for(request, tool_format, request.rules, compact=compact)
    for chunk in upstream.stream(text_request, cancel):
        if chunk.text:
            yield from call_chunks(parser.feed(chunk.text))
        usage, finish = chunk.usage or usage, chunk.finish_reason or finish
    if not cancel.is_set():
        yield from call_chunks(parser.finish())
        yield LLMChunk(usage=usage, finish_reason=finish)


def reply_chunks(request: LLMRequest, tool_format: str, upstream: LLM, formats: ModelFormats,
                 cancel: threading.Event, *, reask: bool = False,
                 compact: bool = False) -> Iterator[LLMChunk]:
    """The upstream's reply to ``request`` in ``tool_format``, as native chunks (no
    ``adapted`` ones); ``MalformedCallError`` for a call that cannot be read (after one
    re-ask with ``reask``). ``compact``: a text format taught by the short manifest and a
    shown exchange."""
    asked = request
    for attempt in range(2 if reask else 1):
        said: list[str] = []
        broken: NativeToolCall | None = None
        for chunk in _in_format(asked, tool_format, upstream, formats, cancel, compact):
            if chunk.adapted is not None:
                continue
            bad = [call for call in chunk.tool_calls if call.unreadable is not None]
            if bad and broken is None:
                broken = bad[0]
            said.append(chunk.text)
            good = tuple(call for call in chunk.tool_calls if call.unreadable is None)
            if chunk.text or good or chunk.usage is not None or chunk.finish_reason:
                yield LLMChunk(text=chunk.text, tool_calls=good, usage=chunk.usage,
                               finish_reason=chunk.finish_reason)
        if broken is None or cancel.is_set():
            return
        assert broken.unreadable is not None
        problem = broken.unreadable.message
        if attempt == 0 and reask:
            asked = LLMRequest(request.system_prompt, (*request.messages, Message(
                "assistant", "".join(said) or "(a tool call that could not be read)"),
                Message("user", f"Your call of {broken.name!r} could not be read: {problem}. "
                                f"Write the call again, exactly in the format shown.")),
                request.tools, rules=request.rules)
            continue
        raise MalformedCallError(f"the model's call of {broken.name!r} could not be read in "
                                 f"the {tool_format} format: {problem}")

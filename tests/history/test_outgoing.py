"""ShapedLLM's text-only copies: a request that repeats the last one's messages reuses what was
sent for them, and any other request (a history cut short, equal messages that are new
objects) is sent exactly what ``sendable`` makes of it."""

from __future__ import annotations

import dataclasses
import threading
from typing import Any

from autobyteus_like.formats import builtin_format
from autobyteus_like.history._outgoing import ShapedLLM
from autobyteus_like.history._replay import sendable
from autobyteus_like.llm._messages import LLMRequest, Message
from autobyteus_like.llm._scripted import ScriptedLLM
from autobyteus_like.tools._invocation import ToolInvocation, ToolResult


def _exchange(n: int) -> list[Message]:
    call = ToolInvocation(id=f"call_{n}", name="add", arguments={"a": n})
    return [Message("user", f"question {n}"),
            Message("assistant", f'{{"name": "add", "arguments": {{"a": {n}}}}}',
                    tool_calls=(call,)),
            Message("user", f"result {n}", tool_results=(ToolResult.success(call, n),))]


def test_every_request_is_sent_what_sendable_makes_of_it() -> None:
    shaped = ShapedLLM(ScriptedLLM([]), "a", builtin_format("json"))
    history = _exchange(1) + _exchange(2)
    cancel = threading.Event()
    requests = [
        history[:3],  # the first request
        history,  # grows: the first three are reused
        history[3:],  # cut short (a processor dropped the start): made anew
        [Message(m.role, m.content, tool_calls=m.tool_calls, tool_results=m.tool_results)
         for m in history[3:]] + _exchange(3),  # equal copies, then more
        history[:2],  # shorter than the last: made anew
    ]
    for messages in requests:
        sent = shaped.shape(LLMRequest("system", tuple(messages)), cancel).messages
        assert sent == sendable(messages, False)
        assert all(not m.tool_calls and not m.tool_results for m in sent)


def _every_field_set(cls: type, **given: object) -> Any:
    """An instance of the dataclass ``cls`` whose every field holds a value of its own (not
    its default), so a copy that drops or mixes up a field cannot equal it."""
    values = {f.name: given.get(f.name, (f"{f.name}-value",)) for f in dataclasses.fields(cls)}
    return cls(**values)


def test_a_shaped_request_keeps_every_field_of_the_request() -> None:
    # shape builds the request directly rather than through dataclasses.replace: a field
    # added to LLMRequest and forgotten there fails here
    shaped = ShapedLLM(ScriptedLLM([]), "a", builtin_format("json"))
    request = _every_field_set(LLMRequest, system_prompt="system", messages=tuple(_exchange(1)),
                               response_schema={"type": "object"})
    sent = shaped.shape(request, threading.Event())
    assert sent == dataclasses.replace(request, messages=sendable(request.messages, False))


def test_sendable_drops_only_calls_and_results() -> None:
    message = _every_field_set(Message, role="assistant")
    expected = dataclasses.replace(message, tool_calls=(), tool_results=())
    assert sendable((message,), False) == (expected,)
    assert sendable((message,), True) == (message,)

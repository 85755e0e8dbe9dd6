"""DemonstratingLLM: the exchange goes before each request's messages, as it is when asked."""

import threading

from autobyteus_like.llm._demonstrating import DemonstratingLLM
from autobyteus_like.llm._messages import LLMRequest, Message
from autobyteus_like.llm._scripted import ScriptedLLM


def _text(llm, request):
    return "".join(chunk.text for chunk in llm.stream(request, threading.Event()))


def test_the_exchange_comes_first_and_follows_its_source():
    shown: list[tuple[str, str] | None] = [("Use the tool add.", '{"name": "add"}')]
    # The scripted LLM keys a first request's reply by the assistant messages it sees: one.
    inner = ScriptedLLM(["(skipped)", "first", "second"])
    llm = DemonstratingLLM(inner, lambda: shown[0])
    question = LLMRequest("system", (Message("user", "Add 2 and 3."),))
    assert _text(llm, question) == "first"
    shown[0] = None
    assert _text(llm, question) == "second"
    first, second = inner.requests
    assert [(m.role, m.content) for m in first.messages] == [
        ("user", "Use the tool add."), ("assistant", '{"name": "add"}'),
        ("user", "Add 2 and 3.")]
    assert first.system_prompt == "system"
    assert second.messages == question.messages
    assert llm.provider is inner.provider and llm.remaining == 0  # reads through

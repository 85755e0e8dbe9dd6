import threading

import pytest

from autobyteus_like import ScriptedLLM
from autobyteus_like.llm import LLMRequest, Message, ScriptExhaustedError

REQUEST = LLMRequest("system", (Message("user", "hi"),))


def chunks(llm: ScriptedLLM) -> list[str]:
    return [c.text for c in llm.stream(REQUEST, threading.Event())]


def test_fixed_random_and_whole_chunking():
    assert chunks(ScriptedLLM(["abcdefg"], chunk_size=3)) == ["abc", "def", "g"]
    assert chunks(ScriptedLLM(["abcdefg"])) == ["abcdefg"]
    randomly = chunks(ScriptedLLM(["abcdefghijklmnop"], chunk_size=(1, 4), seed=3))
    assert "".join(randomly) == "abcdefghijklmnop" and len(set(map(len, randomly))) > 1
    assert randomly == chunks(ScriptedLLM(["abcdefghijklmnop"], chunk_size=(1, 4), seed=3))


def test_callable_responses_see_the_request_and_requests_are_recorded():
    llm = ScriptedLLM([lambda request: f"you said {request.messages[-1].content}"])
    assert chunks(llm) == ["you said hi"]
    assert llm.requests == [REQUEST] and llm.remaining == 0


def test_running_out_is_a_clear_error_and_cancel_stops_streaming():
    llm = ScriptedLLM(["one"])
    chunks(llm)
    with pytest.raises(ScriptExhaustedError, match="request 2 arrived but all 1 scripted"):
        chunks(llm)
    cancel = threading.Event()
    stream = ScriptedLLM(["abcdef"], chunk_size=2).stream(REQUEST, cancel)
    assert next(stream).text == "ab"
    cancel.set()
    assert list(stream) == []
    with pytest.raises(ValueError, match="chunk_size must be at least 1"):
        ScriptedLLM([], chunk_size=0)


def test_a_history_in_the_request_does_not_skip_replies():
    llm = ScriptedLLM(["first", "second", "third"])
    history = (Message("user", "go"), Message("assistant", "old"), Message("user", "more"),
               Message("assistant", "older"), Message("user", "again"))
    streamed = list(llm.stream(LLMRequest("", history), threading.Event()))
    assert "".join(chunk.text for chunk in streamed) == "first"
    assert llm.remaining == 2


def test_continue_after_skips_and_the_exhausted_message_says_why():
    llm = ScriptedLLM(["first", "second", "third"])
    llm.continue_after(2, "session 's' was restored with 2 replies in its history")
    assert chunks(llm) == ["third"]
    llm.continue_after(1, "never goes back")
    with pytest.raises(ScriptExhaustedError, match=(
            r"all 3 scripted responses were used \(it skipped 2: session 's' was "
            r"restored with 2 replies in its history\)")):
        chunks(llm)

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


def test_a_restored_history_picks_the_reply_that_follows_it():
    from autobyteus_like.llm import LLMRequest, Message

    llm = ScriptedLLM(["first", "second", "third"])
    history = (Message("user", "go"), Message("assistant", "first"), Message("user", "more"),
               Message("assistant", "second"), Message("user", "again"))
    chunks = list(llm.stream(LLMRequest("", history), threading.Event()))
    assert "".join(chunk.text for chunk in chunks) == "third"
    assert llm.remaining == 0

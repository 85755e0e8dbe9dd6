"""A provider's stream with malformed chunks ends the turn with an ``LLMError`` naming the
provider and model, never a raw TypeError; odd usage counts never break a sum."""

from __future__ import annotations

import json

import pytest

from autobyteus_like import Agent, AgentConfig, AgentTurnError
from autobyteus_like.events import LLMRequestFailed, LLMResponseCompleted
from autobyteus_like.llm._openai import OpenAILLM
from tests.agent.event_waits import wait_for
from tests.llm.replay_server import Recorded, ReplayServer


def sse(*chunks: object) -> bytes:
    body = "".join(f"data: {json.dumps(chunk)}\n\n" for chunk in chunks)
    return (body + "data: [DONE]\n\n").encode()


def chunk(**fields: object) -> dict[str, object]:
    return {"id": "x", "object": "chat.completion.chunk", "created": 1, "model": "m", **fields}


MALFORMED = {
    "choices null": sse(chunk(choices=None)),
    "delta null": sse(chunk(choices=[{"index": 0, "delta": None}])),
    "tool index list": sse(chunk(choices=[{"index": 0, "delta": {"tool_calls": [
        {"index": [0], "id": "c", "function": {"name": "f", "arguments": "{}"}}]}}])),
    "tool_calls string": sse(chunk(choices=[{"index": 0, "delta": {"tool_calls": "abc"}}])),
    "array chunk": sse([1, 2]),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_a_malformed_chunk_fails_the_turn_with_an_llm_error(case):
    with ReplayServer([Recorded(MALFORMED[case])]) as server:
        llm = OpenAILLM("m", base_url=server.base_url, api_key="k", max_retries=0)
        with Agent(AgentConfig(name="a", llm=llm)) as agent:
            events = agent.events()
            reply = agent.send("hi")
            [failed] = wait_for(events, LLMRequestFailed)
            with pytest.raises(AgentTurnError, match="the LLM call failed: LLMError"):
                reply.result(10)
    assert failed.error_type == "LLMError"
    assert failed.error.startswith("openai m: ")


def test_usage_counts_that_are_not_numbers_are_unknown():
    body = sse(chunk(choices=[{"index": 0, "delta": {"content": "hi"}}]),
               chunk(choices=[], usage={"prompt_tokens": "12", "completion_tokens": True}))
    with ReplayServer([Recorded(body)]) as server:
        llm = OpenAILLM("m", base_url=server.base_url, api_key="k", max_retries=0)
        with Agent(AgentConfig(name="a", llm=llm)) as agent:
            events = agent.events()
            assert agent.run("hi", timeout=10) == "hi"
            [done] = wait_for(events, LLMResponseCompleted)
    assert (done.input_tokens, done.output_tokens) == (0, 0)

"""Prompt caching: an agent's requests only grow at the end, on every provider, so a provider's
prefix cache can serve them; Anthropic gets cache breakpoints (on by default), OpenAI a
``prompt_cache_key`` that stays the same for one agent; cached tokens come back in usage.

Requests are compared as the JSON the server received, in the order it was written."""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Callable
from typing import Any

import pytest

from autobyteus_like import Agent, AgentConfig
from autobyteus_like.llm import LLM, LLMRequest, Message, TokenUsage
from autobyteus_like.llm._anthropic import AnthropicLLM
from autobyteus_like.llm._openai import OpenAILLM
from autobyteus_like.llm._openai_responses import OpenAIResponsesLLM
from tests.llm.provider_helpers import add, anthropic_on, fs_read, gemini_on, openai_on
from tests.llm.replay_server import Recorded, ReplayServer, Stream, fixture
from tests.llm.test_openai_responses_llm import get_capital, recorded


def responses_on(server: ReplayServer) -> LLM:
    return OpenAIResponsesLLM("gpt-4o", base_url=server.base_url, api_key="k",
                              prompt_cache_key="agent-key")


def chat_on(server: ReplayServer) -> LLM:
    return openai_on(server, prompt_cache_key="agent-key")


CASES: dict[str, tuple[Callable[[ReplayServer], LLM], list[Stream | Recorded], str]] = {
    # provider: (its LLM on the server, a call, the answer, a second turn's text; history key)
    "openai": (chat_on, [Stream(fixture("openai/parallel_tool_calls")),
                         Stream(fixture("openai/final_answer")), Stream(fixture("openai/text"))],
               "messages"),
    "openai-responses": (responses_on, [recorded("function_call.sse"), recorded("text.sse"),
                                        recorded("text.sse")], "input"),
    "anthropic": (anthropic_on, [Stream(fixture(f"anthropic/{name}"), named=True, done=False)
                                 for name in ("parallel_tool_use", "final_answer", "text")],
                  "messages"),
    "gemini": (gemini_on, [Stream(fixture(f"gemini/{name}"), done=False)
                           for name in ("function_calls", "final_answer", "text")], "contents"),
}


def unmarked(value: Any) -> Any:
    """``value`` without Anthropic's ``cache_control`` marks."""
    if isinstance(value, dict):
        return {k: unmarked(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [unmarked(v) for v in value]
    return value


def marks(value: Any) -> int:
    text = json.dumps(value)
    return text.count('"cache_control"')


def text_of(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


@pytest.mark.parametrize("provider", list(CASES))
def test_each_request_begins_with_the_one_before_byte_for_byte(provider: str):
    make, replies, history = CASES[provider]
    with ReplayServer(replies) as server:
        config = AgentConfig(name="cached", llm=make(server), tools=[fs_read, add, get_capital],
                             tool_format="native")
        with Agent(config) as agent:
            agent.run("first question", timeout=20)
            agent.run("second question", timeout=20)
    requests = server.requests
    assert len(requests) == 3
    for before, after in itertools.pairwise(requests):
        # everything but the history (model, system prompt with its manifest, tools,
        # settings, cache key) is the same JSON, key order included
        assert text_of({k: v for k, v in before.items() if k != history}) == \
            text_of({k: v for k, v in after.items() if k != history})
        old, new = unmarked(before[history]), unmarked(after[history])
        assert len(new) > len(old)
        assert text_of(new[:len(old)]) == text_of(old)  # earlier messages unchanged
    if provider.startswith("openai"):
        assert {r["prompt_cache_key"] for r in requests} == {"agent-key"}
    if provider == "anthropic":  # three breakpoints: tools, system prompt, last message
        for body in requests:
            assert marks(body) == 3
            assert body["tools"][-1]["cache_control"] == {"type": "ephemeral"}
            assert body["system"][0]["cache_control"] == {"type": "ephemeral"}
            assert body["messages"][-1]["content"][-1]["cache_control"] == {"type": "ephemeral"}


def test_anthropic_caching_can_be_turned_off_and_reads_come_back_in_usage():
    # constructed from fixtures/anthropic/text.json: the same stream reporting a cache read
    stream = fixture("anthropic/text")
    stream[0]["message"]["usage"].update(input_tokens=12, cache_read_input_tokens=2048,
                                         cache_creation_input_tokens=0)
    request = LLMRequest("A long, stable system prompt.", (Message("user", "hi"),),
                         tools=(fs_read,))
    with ReplayServer([Stream(stream, named=True, done=False)]) as server:
        usage = None
        for chunk in anthropic_on(server).stream(request, threading.Event()):
            usage = chunk.usage or usage
    assert usage == TokenUsage(12 + 2048, 9, reasoning_tokens=None, cached_input_tokens=2048)
    off = AnthropicLLM("claude-sonnet-5", api_key="k", prompt_cache=False).request_body(request)
    assert marks(off) == 0 and off["system"] == "A long, stable system prompt."


def test_openai_cache_key_is_one_per_llm_and_only_where_it_is_understood():
    request = LLMRequest("sys", (Message("user", "hi"),))
    one, other = OpenAILLM("gpt-4o", api_key="k"), OpenAILLM("gpt-4o", api_key="k")
    key = one.request_body(request)["prompt_cache_key"]
    assert key == one.request_body(request)["prompt_cache_key"]
    assert key != other.request_body(request)["prompt_cache_key"]
    assert "prompt_cache_key" not in OpenAILLM("gpt-4o", api_key="k", prompt_cache=False
                                               ).request_body(request)
    compatible = OpenAILLM("llama", provider="ollama", api_key="k")
    assert "prompt_cache_key" not in compatible.request_body(request)
    proxied = OpenAILLM("gpt-4o", api_key="k", base_url="http://127.0.0.1:9/v1")
    assert "prompt_cache_key" not in proxied.request_body(request)
    responses = OpenAIResponsesLLM("gpt-4o", api_key="k")
    assert responses.request_body(request)["prompt_cache_key"].startswith("autobyteus-")

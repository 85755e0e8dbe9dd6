"""OpenAILLM on the official SDK against a real local server replaying OpenAI's stream format."""

from __future__ import annotations

import json
import sys

import openai
import pytest

from autobyteus_like.llm import LLMError, LLMRequest, Message, NativeToolCall, TokenUsage
from autobyteus_like.llm._openai import OpenAILLM
from autobyteus_like.tools import ErrorCode, ToolInvocation, ToolResult
from tests.llm.provider_helpers import add, collect, fs_read
from tests.llm.replay_server import Failure, ReplayServer, Stream, fixture

HELLO = LLMRequest("You are terse.", (Message("user", "hi"),))





def make(server: ReplayServer, **options) -> OpenAILLM:
    return OpenAILLM("gpt-4o-mini", base_url=server.base_url, api_key="k", **options)


def test_text_stream_with_usage():
    with ReplayServer([Stream(fixture("openai/text"))]) as server:
        text, calls, usage = collect(make(server), HELLO)
    assert (text, calls, usage) == ("Hello there.", [], TokenUsage(21, 3, 0, 0))
    assert server.paths == ["/v1/chat/completions"]
    assert server.requests[0]["messages"] == [
        {"role": "system", "content": "You are terse."}, {"role": "user", "content": "hi"}]
    assert "tools" not in server.requests[0]


def test_arguments_split_over_many_deltas_are_assembled():
    with ReplayServer([Stream(fixture("openai/tool_call_split"))]) as server:
        _, calls, _ = collect(make(server), HELLO)
    arguments = '{"path": "notes/todo.md", "content": "# TODO\\n- write tests\\n"}'
    assert calls == [NativeToolCall("call_Wq1rT8xY", "write_file", arguments)]


def test_parallel_calls_come_back_in_index_order_with_their_real_names():
    request = LLMRequest("", (Message("user", "go"),), tools=(fs_read, add))
    with ReplayServer([Stream(fixture("openai/parallel_tool_calls"))]) as server:
        _, calls, _ = collect(make(server), request)
    assert calls == [NativeToolCall("call_A1b2C3", "fs.read", '{"path": "README.md"}'),
                     NativeToolCall("call_D4e5F6", "add", '{"a": 2, "b": 40}')]


def test_request_bodies_have_exactly_the_wire_keys():
    call = ToolInvocation(id="call_1", name="fs.read", arguments={"path": "a"})
    ok = ToolResult.success(call, "text of a")
    bad = ToolResult.failure(ToolInvocation(id="call_2", name="add"), ErrorCode.INVALID_ARGS,
                             "missing b", suggestion="add b")
    request = LLMRequest("sys", (
        Message("user", "go"),
        Message("assistant", "", tool_calls=(call, ToolInvocation(id="call_2", name="add"))),
        Message("tool", "", tool_results=(ok, bad)),
    ), tools=(fs_read, add))
    body = make_offline().request_body(request)
    assert set(body) == {"model", "messages", "stream", "stream_options", "tools",
                         "tool_choice", "temperature", "max_tokens"}
    assert body["tool_choice"] == "auto"  # sent explicitly: some servers need it
    assert [set(t) for t in body["tools"]] == [{"type", "function"}] * 2
    assert set(body["tools"][0]["function"]) == {"name", "description", "parameters"}
    assert body["tools"][0]["function"]["name"] == "fs_read"
    assert body["tools"][1]["function"]["parameters"]["required"] == ["a", "b"]
    assistant, first, second = body["messages"][2:]
    assert assistant["content"] == ""  # never null: llama.cpp's server refuses it
    assert set(assistant) == {"role", "content", "tool_calls"}
    assert assistant["tool_calls"][0] == {"id": "call_1", "type": "function", "function": {
        "name": "fs_read", "arguments": '{"path": "a"}'}}
    assert first == {"role": "tool", "tool_call_id": "call_1", "content": "text of a"}
    assert set(second) == {"role", "tool_call_id", "content"}
    assert json.loads(second["content"]) == {"error": {
        "code": "INVALID_ARGS", "message": "missing b", "suggestion": "add b"}}


def make_offline() -> OpenAILLM:
    return OpenAILLM("gpt-4o-mini", base_url="http://127.0.0.1:9/v1", api_key="k", temperature=0.2,
                     max_tokens=256)


def test_rate_limits_are_retried_with_the_servers_backoff():
    limited = Failure(429, {"error": {"message": "Rate limit reached for gpt-4o-mini",
                                      "type": "requests", "code": "rate_limit_exceeded"}},
                      {"retry-after-ms": "5"})
    with ReplayServer([limited, limited, Stream(fixture("openai/text"))]) as server:
        text, _, _ = collect(make(server, max_retries=3), HELLO)
    assert text == "Hello there." and len(server.requests) == 3


def test_a_persistent_server_error_fails_clearly():
    broken = Failure(500, {"error": {"message": "The server had an error", "type": "server_error"}},
                     {"retry-after-ms": "5"})
    with ReplayServer([broken, broken]) as server, pytest.raises(LLMError) as failed:
        collect(make(server, max_retries=1), HELLO)
    assert len(server.requests) == 2
    assert str(failed.value) == ("openai gpt-4o-mini: HTTP 500 internal server error after 2 "
                                 "attempts: The server had an error")
    assert isinstance(failed.value.__cause__, openai.InternalServerError)


def test_missing_key_and_missing_extra_say_what_to_do(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(LLMError, match="the openai provider needs an API key: set the "
                                       "OPENAI_API_KEY environment variable"):
        OpenAILLM("gpt-4o-mini")
    for keyless in ("ollama", "vllm", "llamacpp"):  # wherever the server runs
        monkeypatch.delenv(f"{keyless.upper()}_API_KEY", raising=False)
        remote = OpenAILLM("m", provider=keyless, base_url="http://gpu-box.example:8000/v1")
        assert remote.base_url == "http://gpu-box.example:8000/v1"
    with pytest.raises(LLMError, match="the openai provider needs an API key"):
        OpenAILLM("m", base_url="http://localhost:8000/v1")  # OpenAI asks for a key anywhere
    monkeypatch.setenv("DEEPSEEK_API_KEY", "sk-test")
    assert OpenAILLM("deepseek-chat", provider="deepseek").base_url == "https://api.deepseek.com/v1"
    assert OpenAILLM("llama3.1", provider="ollama").base_url == "http://localhost:11434/v1"
    monkeypatch.setitem(sys.modules, "openai", None)
    with pytest.raises(LLMError, match=r"pip install 'autobyteus-like\[openai\]'"):
        OpenAILLM("gpt-4o-mini", api_key="sk-test")
    with pytest.raises(LLMError) as both:
        OpenAILLM("gpt-4o-mini")
    assert str(both.value) == (
        "the openai provider needs an API key: set the OPENAI_API_KEY environment variable "
        "(or api_key_env / api_key) and the openai package: pip install "
        "'autobyteus-like[openai]'")

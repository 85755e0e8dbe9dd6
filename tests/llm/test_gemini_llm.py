"""GeminiLLM on the official google-genai SDK against a real local server replaying Gemini's
``streamGenerateContent?alt=sse`` stream."""

from __future__ import annotations

import sys

import pytest

from autobyteus_like import Agent, AgentConfig
from autobyteus_like.llm import LLMError, LLMRequest, Message, NativeToolCall, TokenUsage
from autobyteus_like.llm._gemini import GeminiLLM
from autobyteus_like.tools._call_rules import CallRules, ToolChoice
from tests.llm.provider_helpers import add, collect, fs_read
from tests.llm.replay_server import Failure, ReplayServer, Stream, fixture


def gemini(server: ReplayServer, **options) -> GeminiLLM:
    root = server.base_url.removesuffix("/v1") + "/"
    return GeminiLLM("gemini-2.5-flash", base_url=root, api_key="test-key",
                     retry_initial_delay_s=0.01, **options)


def replay(name: str) -> Stream:
    return Stream(fixture(f"gemini/{name}"), done=False)



def test_text_stream_usage_and_request_shape():
    request = LLMRequest("Be brief.", (Message("user", "hi"),))
    with ReplayServer([replay("text")]) as server:
        assert collect(gemini(server), request) == ("Hello from Gemini.", [], TokenUsage(9, 5))
    [path] = server.paths  # the API version is the SDK's choice
    assert path.endswith("/models/gemini-2.5-flash:streamGenerateContent?alt=sse")
    body = server.requests[0]
    assert body["contents"] == [{"role": "user", "parts": [{"text": "hi"}]}]
    assert body["systemInstruction"]["parts"] == [{"text": "Be brief."}]
    assert "tools" not in body


def test_function_calls_and_declarations():
    request = LLMRequest("", (Message("user", "go"),), tools=(fs_read, add))
    with ReplayServer([replay("function_calls")]) as server:
        text, calls, _ = collect(gemini(server), request)
    assert text == "Reading and adding."
    assert calls == [NativeToolCall(None, "fs.read", '{"path": "README.md"}'),
                     NativeToolCall(None, "add", '{"a": 2, "b": 40}')]
    [declarations] = server.requests[0]["tools"]
    names = [d["name"] for d in declarations["functionDeclarations"]]
    assert names == ["fs_read", "add"]
    declared = declarations["functionDeclarations"][1]
    # proto-JSON accepts either spelling; the SDK picks one
    schema = declared.get("parametersJsonSchema") or declared["parameters_json_schema"]
    assert schema == add.inline_schema()


def test_an_agent_in_native_mode_sends_function_responses_in_order():
    with ReplayServer([replay("function_calls"), replay("final_answer")]) as server:
        config = AgentConfig(name="gem", llm=gemini(server), tools=[fs_read, add],
                             tool_format="native")
        with Agent(config) as agent:
            assert agent.run("read and add", timeout=20) == "Both done: README read, 2+40=42."
    model_turn, responses = server.requests[1]["contents"][1:]
    assert [p["functionCall"]["name"] for p in model_turn["parts"][1:]] == ["fs_read", "add"]
    assert [(p["functionResponse"]["name"], p["functionResponse"]["response"])
            for p in responses["parts"]] == [
        ("fs_read", {"result": "contents of README.md"}), ("add", {"result": 42})]
    ids = [p["functionCall"]["id"] for p in model_turn["parts"][1:]]
    assert ids == [p["functionResponse"]["id"] for p in responses["parts"]]  # stable ids


def test_an_agent_in_its_default_gemini_json_format():
    call = [{"candidates": [{"content": {"parts": [{"text": '{"name": "add", "args": '
            '{"a": 1, "b": 2}}'}], "role": "model"}, "finishReason": "STOP", "index": 0}],
             "usageMetadata": {"promptTokenCount": 50, "candidatesTokenCount": 9}}]
    with ReplayServer([Stream(call, done=False), replay("text")]) as server:
        config = AgentConfig(name="gem", llm=gemini(server), tools=[add],
                             system_prompt="{{tools}}")
        with Agent(config) as agent:
            assert agent.format.name == "gemini"
            assert agent.run("1+2?", timeout=20) == "Hello from Gemini."
    assert "tools" not in server.requests[0]
    last = server.requests[1]["contents"][-1]["parts"][0]["text"]
    assert '"status": "success", "content": 3' in last


def test_rate_limits_are_retried_and_missing_setup_is_explained(monkeypatch):
    limited = Failure(429, {"error": {"code": 429, "message": "Resource has been exhausted",
                                      "status": "RESOURCE_EXHAUSTED"}})
    request = LLMRequest("", (Message("user", "hi"),))
    with ReplayServer([limited, replay("text")]) as server:
        assert collect(gemini(server, max_retries=2), request)[0] == "Hello from Gemini."
    assert len(server.requests) == 2
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    with pytest.raises(LLMError, match="set the GEMINI_API_KEY environment variable"):
        GeminiLLM("gemini-2.5-flash")
    monkeypatch.setitem(sys.modules, "google.genai", None)
    with pytest.raises(LLMError, match=r"pip install 'autobyteus-like\[gemini\]'"):
        GeminiLLM("gemini-2.5-flash", api_key="k")


def test_thinking_tokens_count_as_output_as_other_providers_count_reasoning():
    from types import SimpleNamespace

    from autobyteus_like.llm._gemini import _usage

    metadata = SimpleNamespace(prompt_token_count=100, tool_use_prompt_token_count=20,
                               candidates_token_count=30, thoughts_token_count=70,
                               cached_content_token_count=None)
    assert _usage(metadata) == TokenUsage(120, 100, reasoning_tokens=70,
                                          cached_input_tokens=None)


@pytest.mark.parametrize(("choice", "config"), [
    (None, {"mode": "AUTO"}),
    (ToolChoice("required"), {"mode": "ANY"}),
    (ToolChoice("none"), {"mode": "NONE"}),
    (ToolChoice("tool", "fs.read"), {"mode": "ANY", "allowedFunctionNames": ["fs_read"]}),
])
def test_tool_choice_is_the_function_calling_config(choice, config):
    request = LLMRequest("", (Message("user", "go"),), tools=(fs_read, add),
                         rules=CallRules(choice))
    with ReplayServer([replay("function_calls")]) as server:
        collect(gemini(server), request)
    sent = server.requests[0]["toolConfig"]
    calling = sent.get("functionCallingConfig") or sent["function_calling_config"]
    assert {key: calling[key] for key in calling if calling[key] is not None} == config

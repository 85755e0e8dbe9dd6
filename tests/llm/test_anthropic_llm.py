"""AnthropicLLM on the official SDK against a real local server replaying Anthropic's stream."""

from __future__ import annotations

import sys

import anthropic
import pytest

from autobyteus_like import Agent, AgentConfig
from autobyteus_like.llm import LLMError, LLMRequest, Message, NativeToolCall, TokenUsage
from autobyteus_like.llm._anthropic import AnthropicLLM
from autobyteus_like.tools import ToolInvocation, ToolResult
from autobyteus_like.tools._call_rules import CallRules, ToolChoice
from tests.llm.provider_helpers import add, collect, fs_read
from tests.llm.replay_server import Failure, ReplayServer, Stream, fixture


def claude(server: ReplayServer, **options) -> AnthropicLLM:
    root = server.base_url.removesuffix("/v1")
    return AnthropicLLM("claude-sonnet-5", base_url=root, api_key="sk-ant-test", **options)


def replay(name: str) -> Stream:
    return Stream(fixture(f"anthropic/{name}"), named=True, done=False)



def test_text_stream_usage_and_request_shape():
    request = LLMRequest("Be brief.", (Message("user", "hi"),))
    with ReplayServer([replay("text")]) as server:
        text, calls, usage = collect(claude(server, prompt_cache=False), request)
    assert (text, calls, usage) == ("Hello from Claude.", [],
                                    TokenUsage(25, 9, reasoning_tokens=None, cached_input_tokens=0))
    assert server.paths == ["/v1/messages"]
    body = server.requests[0]
    assert set(body) == {"model", "messages", "stream", "max_tokens", "system"}
    assert body["system"] == "Be brief." and body["messages"] == [{"role": "user", "content": "hi"}]


def test_tool_use_blocks_are_assembled_from_input_json_deltas():
    request = LLMRequest("", (Message("user", "go"),), tools=(fs_read, add))
    with ReplayServer([replay("parallel_tool_use")]) as server:
        text, calls, _ = collect(claude(server, prompt_cache=False), request)
    assert text == "I'll read the file and add."
    assert calls == [
        NativeToolCall("toolu_01A09q90qw90lq917835lq9", "fs.read", '{"path": "README.md"}'),
        NativeToolCall("toolu_01B77x81yz12mn845920ab3", "add", '{"a": 2, "b": 40}')]
    tools = server.requests[0]["tools"]
    assert [set(t) for t in tools] == [{"name", "description", "input_schema"}] * 2
    assert tools[0]["name"] == "fs_read"


def test_results_go_back_as_tool_result_blocks_in_order():
    call = ToolInvocation(id="toolu_1", name="fs.read", arguments={"path": "a"})
    other = ToolInvocation(id="toolu_2", name="add", arguments={"a": 1, "b": 2})
    request = LLMRequest("", (
        Message("user", "go"), Message("assistant", "On it.", tool_calls=(call, other)),
        Message("tool", "", tool_results=(ToolResult.success(call, "A"),
                                          ToolResult.success(other, 3))),
    ), tools=(fs_read, add))
    body = AnthropicLLM("claude-sonnet-5", api_key="k", prompt_cache=False).request_body(request)
    assistant, results = body["messages"][1:]
    assert assistant["content"] == [
        {"type": "text", "text": "On it."},
        {"type": "tool_use", "id": "toolu_1", "name": "fs_read", "input": {"path": "a"}},
        {"type": "tool_use", "id": "toolu_2", "name": "add", "input": {"a": 1, "b": 2}}]
    assert results == {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_1", "content": "A", "is_error": False},
        {"type": "tool_result", "tool_use_id": "toolu_2", "content": "3", "is_error": False}]}


def test_overloaded_is_retried_and_missing_setup_is_explained(monkeypatch):
    overloaded = Failure(529, {"type": "error", "error": {"type": "overloaded_error",
                                                          "message": "Overloaded"}},
                         {"retry-after-ms": "5"})
    request = LLMRequest("", (Message("user", "hi"),))
    with ReplayServer([overloaded, replay("text")]) as server:
        assert collect(claude(server, max_retries=2), request)[0] == "Hello from Claude."
    with ReplayServer([overloaded, overloaded]) as server, pytest.raises(LLMError) as failed:
        collect(claude(server, max_retries=1), request)
    assert str(failed.value) == ("anthropic claude-sonnet-5: HTTP 529 overloaded after 2 "
                                 "attempts: Overloaded")
    assert (failed.value.status, failed.value.attempts, failed.value.server_message) == (
        529, 2, "Overloaded")
    assert isinstance(failed.value.__cause__, anthropic.APIStatusError)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(LLMError, match="set the ANTHROPIC_API_KEY environment variable"):
        AnthropicLLM("claude-sonnet-5")
    monkeypatch.setitem(sys.modules, "anthropic", None)
    with pytest.raises(LLMError, match=r"pip install 'autobyteus-like\[anthropic\]'"):
        AnthropicLLM("claude-sonnet-5", api_key="k")


def test_an_agent_in_native_mode_end_to_end():
    with ReplayServer([replay("parallel_tool_use"), replay("final_answer")]) as server:
        config = AgentConfig(name="claude", llm=claude(server), tools=[fs_read, add],
                             tool_format="native")
        with Agent(config) as agent:
            assert agent.run("read and add", timeout=20) == "Both done: README read, 2+40=42."
    results = server.requests[1]["messages"][-1]["content"]
    assert [(r["tool_use_id"], r["content"]) for r in results] == [
        ("toolu_01A09q90qw90lq917835lq9", "contents of README.md"),
        ("toolu_01B77x81yz12mn845920ab3", "42")]


def test_an_agent_in_its_default_xml_format():
    xml_call = [
        {"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant",
         "model": "claude-sonnet-5", "content": [], "stop_reason": None, "stop_sequence": None,
         "usage": {"input_tokens": 500, "output_tokens": 1}}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text":
         '<tool name="add"><arguments><arg name="a">2</arg>'}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text":
         '<arg name="b">40</arg></arguments></tool>'}},
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None},
         "usage": {"output_tokens": 30}},
        {"type": "message_stop"}]
    with ReplayServer([Stream(xml_call, named=True, done=False), replay("text")]) as server:
        config = AgentConfig(name="claude", llm=claude(server), tools=[add],
                             system_prompt="{{tools}}")
        with Agent(config) as agent:
            assert agent.format.name == "xml"
            assert agent.run("2+40?", timeout=20) == "Hello from Claude."
    first, second = server.requests
    assert "tools" not in first and '<tool name="add">' in first["system"][0]["text"]
    assert 'status="success">42</tool_result>' in second["messages"][-1]["content"][0]["text"]


def test_message_delta_usage_is_cumulative_and_wins_over_message_start():
    """A server-tool turn: message_start says 702 input tokens, the final message_delta 1,591
    (the figure the recording of such a turn states); the delta's counts win."""
    from types import SimpleNamespace

    from autobyteus_like.llm._anthropic_wire import AnthropicUsage

    usage = AnthropicUsage()
    usage.add(SimpleNamespace(input_tokens=702, output_tokens=1, cache_read_input_tokens=0))
    usage.add(SimpleNamespace(input_tokens=1591, output_tokens=212,
                              output_tokens_details=SimpleNamespace(thinking_tokens=40)))
    assert usage.total() == TokenUsage(1591, 212, reasoning_tokens=40, cached_input_tokens=0)
    partial = AnthropicUsage()
    partial.add(SimpleNamespace(input_tokens=30, output_tokens=1))
    partial.add(SimpleNamespace(output_tokens=18))  # a delta with output only keeps the input
    assert partial.total() == TokenUsage(30, 18)


@pytest.mark.parametrize(("choice", "parallel", "wire"), [
    (None, None, {"type": "auto"}),
    (ToolChoice("required"), False, {"type": "any", "disable_parallel_tool_use": True}),
    (ToolChoice("tool", "fs.read"), None, {"type": "tool", "name": "fs_read"}),
    (ToolChoice("none"), False, {"type": "none"}),
])
def test_tool_choice_is_sent_with_the_tools_as_anthropic_names_it(choice, parallel, wire):
    request = LLMRequest("", (Message("user", "go"),), tools=(fs_read, add),
                         rules=CallRules(choice, parallel))
    assert AnthropicLLM("claude-sonnet-5", api_key="k").request_body(request)[
        "tool_choice"] == wire

"""A response cut off at max_tokens is said so plainly, to the LLM and to the user, instead of
looking like a malformed call; and the finish reason and full usage reach the events."""

from __future__ import annotations

import json

from autobyteus_like import Agent, AgentConfig, ScriptedLLM, tool
from autobyteus_like.events import LLMResponseCompleted, ToolCallParseFailed
from autobyteus_like.handlers._llm_response import CUT_OFF
from autobyteus_like.llm import NativeToolCall, ScriptedReply
from autobyteus_like.llm._anthropic import AnthropicLLM
from autobyteus_like.llm._openai import OpenAILLM
from tests.llm.replay_server import ReplayServer, Stream, fixture


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def run_agent(llm, message: str = "add 2 and 40", **options: object) -> tuple[str, list]:
    with Agent(AgentConfig(name="cut", llm=llm, tools=[add], **options)) as agent:
        events = agent.events()
        answer = agent.run(message, timeout=20)
        events.close()
    return answer, list(events)


def error_shown(llm: ScriptedLLM) -> dict:
    """The error of the one result the LLM saw in its second request (native format)."""
    [result] = llm.requests[1].messages[-1].tool_results
    return result.error.model_dump()


def test_a_native_call_cut_off_by_max_tokens_is_reported_as_cut_off():
    broken = NativeToolCall("call_1", "add", '{"a": 2, "b": 4')
    llm = ScriptedLLM([ScriptedReply("Adding.", (broken,), finish_reason="length"), "Sorry."])
    answer, events = run_agent(llm, tool_format="native")
    assert answer == "Sorry."
    error = error_shown(llm)
    assert error["code"] == "PARSE_ERROR"
    assert error["message"].startswith(f"{CUT_OFF}, so this call came back incomplete "
                                       "(invalid_json: the arguments of 'add' are not valid JSON")
    assert "shorter arguments" in error["suggestion"]
    [failed] = [e for e in events if isinstance(e, ToolCallParseFailed)]
    assert failed.error.message.startswith(CUT_OFF)  # subscribers see what the LLM sees
    assert [e.finish_reason for e in events if isinstance(e, LLMResponseCompleted)] == [
        "length", None]


def test_the_same_broken_call_without_the_limit_is_an_ordinary_json_error():
    broken = NativeToolCall("call_1", "add", '{"a": 2, "b": 4')
    llm = ScriptedLLM([ScriptedReply("Adding.", (broken,), finish_reason="tool_calls"), "ok"])
    run_agent(llm, tool_format="native")
    error = error_shown(llm)
    assert error["message"].startswith("invalid_json: the arguments of 'add' are not valid JSON")
    assert CUT_OFF not in error["message"]
    assert error["suggestion"] == "call the tool again with a JSON object of arguments"


def test_a_text_format_call_cut_off_mid_way_is_reported_as_cut_off():
    cut = 'Let me add. {"name": "add", "arguments": {"a": 2, "b"'
    llm = ScriptedLLM([ScriptedReply(cut, finish_reason="length"), "Sorry."], chunk_size=7)
    assert run_agent(llm, tool_format="json")[0] == "Sorry."
    results = llm.requests[1].messages[-1].content  # the json format's results message
    assert f"{CUT_OFF}, so this call came back incomplete (the tool call is cut off" in results


def test_an_answer_cut_off_says_so_to_the_user_and_to_the_next_request():
    llm = ScriptedLLM([ScriptedReply("The three steps are: one, two", finish_reason="length"),
                       "Three."])
    with Agent(AgentConfig(name="cut", llm=llm, tools=[add], tool_format="json")) as agent:
        answer = agent.run("steps?", timeout=20)
        agent.run("go on", timeout=20)
    assert answer == ("The three steps are: one, two\n\n"
                      "[the answer was cut off at the max_tokens limit]")
    history = llm.requests[1].messages
    assert history[1].role == "assistant"
    assert history[1].content == f"The three steps are: one, two\n\n[{CUT_OFF}]"


def test_complete_calls_in_a_response_cut_off_afterwards_still_run_and_the_llm_is_told():
    done = NativeToolCall("call_1", "add", '{"a": 2, "b": 40}')
    llm = ScriptedLLM([ScriptedReply("Adding, then I will expl", (done,),
                                     finish_reason="length"), "42"])
    assert run_agent(llm, tool_format="native")[0] == "42"
    assistant, results = llm.requests[1].messages[1:]
    assert assistant.content.endswith(f"[{CUT_OFF}]")
    assert [r.status for r in results.tool_results] == ["success"]


def openai_chunk(delta: dict, finish: str | None = None, usage: dict | None = None) -> dict:
    return {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m",
            "choices": [] if usage else [{"index": 0, "delta": delta, "finish_reason": finish}],
            "usage": usage}


def test_end_to_end_an_openai_call_cut_at_max_tokens_and_the_usage_breakdown():
    cut = [openai_chunk({"role": "assistant", "tool_calls": [{
               "index": 0, "id": "call_9", "type": "function",
               "function": {"name": "add", "arguments": ""}}]}),
           openai_chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"a": 2, '}}]}),
           openai_chunk({}, finish="length"),
           openai_chunk({}, usage={"prompt_tokens": 90, "completion_tokens": 16,
                                   "prompt_tokens_details": {"cached_tokens": 64},
                                   "completion_tokens_details": {"reasoning_tokens": 12}})]
    with ReplayServer([Stream(cut), Stream(fixture("openai/text"))]) as server:
        llm = OpenAILLM("gpt-4o-mini", base_url=server.base_url, api_key="k", max_tokens=16)
        answer, events = run_agent(llm, tool_format="native")
    assert answer == "Hello there."
    tool_message = server.requests[1]["messages"][-1]
    assert tool_message["tool_call_id"] == "call_9"
    assert json.loads(tool_message["content"])["error"]["message"].startswith(CUT_OFF)
    first = next(e for e in events if isinstance(e, LLMResponseCompleted))
    assert (first.finish_reason, first.provider_finish_reason) == ("length", "length")
    assert (first.input_tokens, first.output_tokens, first.reasoning_tokens,
            first.cached_input_tokens) == (90, 16, 12, 64)


def test_end_to_end_an_anthropic_tool_use_block_cut_at_max_tokens():
    cut = [{"type": "message_start", "message": {
               "id": "msg_1", "type": "message", "role": "assistant", "model": "claude",
               "content": [], "stop_reason": None, "stop_sequence": None,
               "usage": {"input_tokens": 50, "output_tokens": 1}}},
           {"type": "content_block_start", "index": 0, "content_block": {
               "type": "tool_use", "id": "toolu_1", "name": "add", "input": {}}},
           {"type": "content_block_delta", "index": 0,
            "delta": {"type": "input_json_delta", "partial_json": '{"a": 2, "b'}},
           {"type": "content_block_stop", "index": 0},
           {"type": "message_delta", "delta": {"stop_reason": "max_tokens",
                                               "stop_sequence": None},
            "usage": {"output_tokens": 8}},
           {"type": "message_stop"}]
    with ReplayServer([Stream(cut, named=True, done=False),
                       Stream(fixture("anthropic/text"), named=True, done=False)]) as server:
        llm = AnthropicLLM("claude", base_url=server.base_url.removesuffix("/v1"), api_key="k")
        answer, events = run_agent(llm, tool_format="native")
    assert answer == "Hello from Claude."
    [result] = server.requests[1]["messages"][-1]["content"]
    assert result["tool_use_id"] == "toolu_1" and result["is_error"] is True
    assert json.loads(result["content"])["error"]["message"].startswith(CUT_OFF)
    first = next(e for e in events if isinstance(e, LLMResponseCompleted))
    assert (first.finish_reason, first.provider_finish_reason) == ("length", "max_tokens")

"""OpenAIResponsesLLM on the official SDK against a local server replaying Responses streams.

The recorded streams (``tests/fixtures/openai_responses``, README there names each one's
source) are served byte for byte; what the LLM assembles is checked against what the recording
itself says, read here from its events without the SDK or the package. A few streams are
constructed by hand below (failures, parallel calls, a cut-off stream) and named so.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest

from autobyteus_like import Agent, AgentConfig, tool
from autobyteus_like.hooks._session_writer import message_data
from autobyteus_like.llm import LLMChunk, LLMError, LLMRequest, Message, NativeToolCall, TokenUsage
from autobyteus_like.llm._openai_responses import OpenAIResponsesLLM
from autobyteus_like.store import Session
from autobyteus_like.store._records import MessageRecord
from autobyteus_like.store._restore import message_from
from autobyteus_like.tools import ToolInvocation, ToolResult
from tests.llm.realwire import sse_events
from tests.llm.realwire_clients import declared
from tests.llm.replay_server import Recorded, ReplayServer

RECORDED = Path(__file__).parent.parent / "fixtures" / "openai_responses"
SSE = "text/event-stream; charset=utf-8"


def recorded(name: str) -> Recorded:
    return Recorded((RECORDED / name).read_bytes(), 200, SSE)


def constructed(*events: dict[str, Any]) -> Recorded:
    """A stream built by hand in the Responses framing (``event:`` names its type)."""
    body = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)
    return Recorded(body.encode(), 200, "text/event-stream")


def responses_llm(server: ReplayServer, model: str = "gpt-4o", **options: Any
                  ) -> OpenAIResponsesLLM:
    return OpenAIResponsesLLM(model, base_url=server.base_url, api_key="k", max_retries=0,
                              **options)


def run(llm: OpenAIResponsesLLM, request: LLMRequest) -> list[LLMChunk]:
    return list(llm.stream(request, threading.Event()))


def said(body: bytes) -> dict[str, Any]:
    """What a recorded stream says: its text, calls, usage, reasoning items and status."""
    text, calls, reasoning, usage, status = "", [], [], None, None
    for kind, data in sse_events(body):
        event = json.loads(data)
        assert event["type"] == kind  # the framing names each event by its type
        if kind == "response.output_text.delta":
            text += event["delta"]
        elif kind == "response.output_item.done" and event["item"]["type"] == "function_call":
            item = event["item"]
            calls.append(NativeToolCall(item["call_id"], item["name"], item["arguments"]))
        elif kind == "response.output_item.done" and event["item"]["type"] == "reasoning":
            reasoning.append(event["item"])
        elif kind == "response.completed":
            status, raw = event["response"]["status"], event["response"]["usage"]
            usage = TokenUsage(raw["input_tokens"], raw["output_tokens"],
                               raw["output_tokens_details"]["reasoning_tokens"],
                               raw["input_tokens_details"]["cached_tokens"])
    return {"text": text, "calls": calls, "reasoning": reasoning, "usage": usage,
            "status": status}


STREAMS = {  # recording -> the tools its request declared
    "text.sse": ["get_capital"],
    "function_call.sse": ["get_capital"],
    "reasoning_function_call.sse": ["final_result"],
    "reasoning_text_function_call.sse": ["get_capital"],
    "deepseek_reasoning_function_call.sse": ["get_temperature"],
    "deepseek_text_cached.sse": ["get_temperature"],
}


@pytest.mark.parametrize("name", list(STREAMS))
def test_a_recorded_stream_comes_out_as_the_recording_says(name: str):
    want = said((RECORDED / name).read_bytes())
    request = LLMRequest("Be brief.", (Message("user", "hi"),), tools=declared(STREAMS[name]))
    with ReplayServer([recorded(name)]) as server:
        chunks = run(responses_llm(server), request)
    assert server.paths == ["/v1/responses"]
    final = chunks[-1]
    assert "".join(c.text for c in chunks) == want["text"]
    assert [c for chunk in chunks for c in chunk.tool_calls] == want["calls"]
    assert final.usage == want["usage"]
    assert (final.provider_finish_reason, final.finish_reason) == (
        want["status"], "tool_calls" if want["calls"] else "stop")
    assert [entry["item"]["id"] for entry in final.carried] == [
        item["id"] for item in want["reasoning"]]
    for entry, item in zip(final.carried, want["reasoning"], strict=True):
        assert entry["wire"] == "openai-responses"
        assert entry["item"].get("encrypted_content") == item.get("encrypted_content")


def test_recorded_usage_counts_reasoning_and_cached_tokens():
    with ReplayServer([recorded("reasoning_function_call.sse"),
                       recorded("deepseek_text_cached.sse")]) as server:
        gpt5 = run(responses_llm(server, "gpt-5"), LLMRequest("", (Message("user", "x"),)))
        deepseek = run(responses_llm(server, "deepseek-v4-flash"),
                       LLMRequest("", (Message("user", "x"),)))
    assert gpt5[-1].usage == TokenUsage(53, 469, reasoning_tokens=448, cached_input_tokens=0)
    assert deepseek[-1].usage == TokenUsage(440, 14, reasoning_tokens=0, cached_input_tokens=384)


def test_the_next_request_carries_the_whole_conversation_and_the_encrypted_reasoning():
    tools = declared(["final_result"])
    with ReplayServer([recorded("reasoning_function_call.sse"), recorded("text.sse")]) as server:
        llm = responses_llm(server, "gpt-5")
        first = run(llm, LLMRequest("Be exact.", (Message("user", "100*200/3?"),), tools=tools))
        call = first[-2].tool_calls[0] if first[-2].tool_calls else first[-1].tool_calls[0]
        invocation = ToolInvocation(id=call.id or "", name=call.name,
                                    arguments=json.loads(call.arguments))
        history = (Message("user", "100*200/3?"),
                   Message("assistant", "", tool_calls=(invocation,), carried=first[-1].carried),
                   Message("tool", "", tool_results=(ToolResult.success(invocation, "ok"),)))
        run(llm, LLMRequest("Be exact.", history, tools=tools))
    reasoning = said((RECORDED / "reasoning_function_call.sse").read_bytes())["reasoning"][0]
    body = server.requests[1]
    assert body["store"] is False and "previous_response_id" not in body
    assert body["include"] == ["reasoning.encrypted_content"]
    assert body["instructions"] == "Be exact."
    assert body["input"] == [
        {"role": "user", "content": "100*200/3?"},
        {"type": "reasoning", "id": reasoning["id"], "summary": reasoning["summary"],
         "encrypted_content": reasoning["encrypted_content"]},
        {"type": "function_call", "call_id": call.id, "name": "final_result",
         "arguments": json.dumps(invocation.arguments)},
        {"type": "function_call_output", "call_id": call.id, "output": "ok"},
    ]
    assert body["tools"] == [{"type": "function", "name": "final_result",
                              "description": tools[0].description,
                              "parameters": tools[0].shared_inline_schema, "strict": False}]


def test_previous_response_id_sends_only_what_is_new():
    hello = (Message("user", "Capital of France?"),)
    with ReplayServer([recorded("text.sse"), recorded("text.sse"),
                       recorded("text.sse")]) as server:
        llm = responses_llm(server, previous_response=True)
        answer = "".join(c.text for c in run(llm, LLMRequest("", hello)))
        history = (*hello, Message("assistant", answer), Message("user", "And Spain?"))
        run(llm, LLMRequest("", history))
        run(llm, LLMRequest("", (Message("user", "a new conversation"),)))
    response_id = json.loads(sse_events((RECORDED / "text.sse").read_bytes())[0][1])[
        "response"]["id"]
    first, second, third = server.requests
    assert first["store"] is True and "previous_response_id" not in first
    assert second["previous_response_id"] == response_id
    assert second["input"] == [{"role": "user", "content": "And Spain?"}]
    assert "previous_response_id" not in third  # a history that does not go on from it


def test_a_recorded_http_error_is_an_llm_error():
    body = (RECORDED / "http_400.json").read_bytes()
    with ReplayServer([Recorded(body, 400, "application/json")]) as server, \
            pytest.raises(LLMError) as failed:
        run(responses_llm(server), LLMRequest("", (Message("user", "hi"),)))
    message = json.loads(body)["error"]["message"]
    assert failed.value.status == 400 and failed.value.server_message == message
    assert str(failed.value).startswith("openai gpt-4o: HTTP 400")


CREATED = {"type": "response.created", "sequence_number": 0, "response": {
    "id": "resp_c1", "object": "response", "created_at": 1, "status": "in_progress",
    "model": "gpt-4o", "output": [], "tools": [], "parallel_tool_calls": True,
    "tool_choice": "auto"}}


def test_a_failed_response_and_an_error_event_are_llm_errors():  # constructed streams
    failed = {"type": "response.failed", "sequence_number": 2, "response": {
        **CREATED["response"], "status": "failed",
        "error": {"code": "server_error", "message": "The server had an error."}}}
    error = {"type": "error", "sequence_number": 1, "code": "rate_limit_exceeded",
             "message": "Rate limit reached for gpt-4o.", "param": None}
    request = LLMRequest("", (Message("user", "hi"),))
    with ReplayServer([constructed(CREATED, failed), constructed(CREATED, error)]) as server:
        with pytest.raises(LLMError) as one:
            run(responses_llm(server), request)
        with pytest.raises(LLMError) as two:
            run(responses_llm(server), request)
    assert (one.value.status, one.value.server_message) == (500, "The server had an error.")
    assert "the response failed (server_error)" in str(one.value)
    assert (two.value.status, two.value.server_message) == (429,
                                                            "Rate limit reached for gpt-4o.")


def test_parallel_calls_and_a_cut_off_stream():  # constructed streams
    def call(index: int, call_id: str, name: str, arguments: str) -> list[dict[str, Any]]:
        item = {"id": f"fc_{index}", "type": "function_call", "call_id": call_id,
                "name": name, "arguments": "", "status": "in_progress"}
        half = len(arguments) // 2
        return [
            {"type": "response.output_item.added", "output_index": index, "item": item,
             "sequence_number": 0},
            *({"type": "response.function_call_arguments.delta", "output_index": index,
               "item_id": f"fc_{index}", "delta": piece, "sequence_number": 0}
              for piece in (arguments[:half], arguments[half:])),
            {"type": "response.output_item.done", "output_index": index, "sequence_number": 0,
             "item": {**item, "arguments": arguments, "status": "completed"}},
        ]
    done = {"type": "response.completed", "sequence_number": 9, "response": {
        **CREATED["response"], "status": "completed",
        "usage": {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15,
                  "input_tokens_details": {"cached_tokens": 0},
                  "output_tokens_details": {"reasoning_tokens": 0}}}}
    parallel = [CREATED, *call(0, "call_a", "fs_read", '{"path": "README.md"}'),
                *call(1, "call_b", "add", '{"a": 2, "b": 40}'), done]
    cut = {"type": "response.incomplete", "sequence_number": 3, "response": {
        **CREATED["response"], "status": "incomplete",
        "incomplete_details": {"reason": "max_output_tokens"}}}
    text = {"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 0,
            "content_index": 0, "delta": "The answer is", "sequence_number": 1,
            "logprobs": []}
    refusal = {"type": "response.refusal.delta", "item_id": "msg_1", "output_index": 0,
               "content_index": 0, "delta": "I can't help with that.", "sequence_number": 1}
    request = LLMRequest("", (Message("user", "go"),), tools=declared(["fs.read", "add"]))
    with ReplayServer([constructed(*parallel), constructed(*parallel[:-1]),
                       constructed(CREATED, text, cut),
                       constructed(CREATED, refusal, {**done, "response": {
                           **done["response"], "usage": None}})]) as server:
        chunks = run(responses_llm(server), request)
        with pytest.raises(LLMError, match=r"no response\.completed"):
            run(responses_llm(server), request)
        limited = run(responses_llm(server), request)
        declined = run(responses_llm(server), request)
    assert "".join(c.text for c in declined) == "I can't help with that."
    assert declined[-1].finish_reason == "content_filter" and declined[-1].usage is None
    assert "".join(c.text for c in limited) == "The answer is"
    assert (limited[-1].finish_reason, limited[-1].provider_finish_reason) == (
        "length", "max_output_tokens")
    assert [c for chunk in chunks for c in chunk.tool_calls] == [
        NativeToolCall("call_a", "fs.read", '{"path": "README.md"}'),
        NativeToolCall("call_b", "add", '{"a": 2, "b": 40}')]
    assert chunks[-1].finish_reason == "tool_calls"


@tool
def get_capital(country: str) -> str:
    """The capital city of a country."""
    return {"France": "Paris"}.get(country, "unknown")


def test_an_agent_runs_a_recorded_call_and_answer_end_to_end():
    with ReplayServer([recorded("function_call.sse"), recorded("text.sse")]) as server:
        config = AgentConfig(name="responder", llm=responses_llm(server), tools=[get_capital],
                             tool_format="native")
        with Agent(config) as agent:
            answer = agent.run("What is the capital of France?", timeout=20)
    assert answer == said((RECORDED / "text.sse").read_bytes())["text"]
    recorded_call = said((RECORDED / "function_call.sse").read_bytes())["calls"][0]
    second = server.requests[1]["input"]
    assert second[-2]["type"] == "function_call" and second[-2]["call_id"] == recorded_call.id
    assert second[-1] == {"type": "function_call_output", "call_id": recorded_call.id,
                          "output": "Paris"}


def test_reasoning_items_survive_a_durable_session():
    with ReplayServer([recorded("reasoning_function_call.sse")]) as server:
        final = run(responses_llm(server, "gpt-5"), LLMRequest("", (Message("user", "x"),)))[-1]
    answer = Message("assistant", "", carried=final.carried)
    data = json.loads(json.dumps(message_data(answer, request_no=1)))  # as the store keeps it
    record = MessageRecord(agent="a", seq=1, epoch=0, role="assistant", content="",
                           carried=data["carried"], request_no=1)
    assert message_from(record) == answer and answer.carried


@tool
def final_result(result: int) -> str:
    """Report the result."""
    return f"reported {result}"


def test_a_resumed_session_sends_the_stored_reasoning_back(tmp_path: Path):
    """One agent answers with a reasoning model and stops; a new agent on the same durable
    session (a new process would do the same) sends the stored reasoning items back."""
    store = str(tmp_path / "sessions.db")
    reasoning = said((RECORDED / "reasoning_function_call.sse").read_bytes())["reasoning"]

    def agent(server: ReplayServer) -> Agent:
        config = AgentConfig(name="thinker", llm=responses_llm(server, "gpt-5"),
                             tools=[final_result], tool_format="native")
        return Agent(config, session=Session("s1", store))

    with ReplayServer([recorded("reasoning_function_call.sse"), recorded("text.sse")]) as server:
        first = agent(server)
        with first:
            first.run("Calculate 100 * 200 / 3", timeout=20)
        first.session.close()
    with ReplayServer([recorded("text.sse")]) as server:
        second = agent(server)
        with second:
            second.run("And half of that?", timeout=20)
        second.session.close()
    sent = server.requests[0]["input"]
    carried = [item for item in sent if item.get("type") == "reasoning"]
    assert [(item["id"], item["encrypted_content"]) for item in carried] == [
        (item["id"], item["encrypted_content"]) for item in reasoning]
    kinds = [item.get("type", item.get("role")) for item in sent]
    assert kinds == ["user", "reasoning", "function_call", "function_call_output", "message",
                     "user"]


def test_a_members_call_rules_in_the_responses_shape():
    from autobyteus_like.tools._call_rules import CallRules, ToolChoice

    tools = declared(["fs.read", "add"])
    named = LLMRequest("", (Message("user", "go"),), tools=tools,
                       rules=CallRules(ToolChoice("tool", "fs.read"), parallel=False))
    body = OpenAIResponsesLLM("gpt-4o", api_key="k").request_body(named)
    assert body["tool_choice"] == {"type": "function", "name": "fs_read"}
    assert body["parallel_tool_calls"] is False
    plain = OpenAIResponsesLLM("gpt-4o", api_key="k").request_body(
        LLMRequest("", (Message("user", "go"),), tools=tools))
    assert plain["tool_choice"] == "auto" and "parallel_tool_calls" not in plain

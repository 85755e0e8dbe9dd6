"""A server that cannot stream a request with tools is asked again unstreamed (and from then
on), with the same chunks coming out either way; OpenAI-compatible quirks of real servers
(llama.cpp's: the legacy ``function_call`` beside ``tool_calls``, names like ``"add:"``, null
content refused) are read or avoided. Against a real local server replaying those bytes."""

from __future__ import annotations

import json
import threading

import pytest

from autobyteus_like.errors import LLMError
from autobyteus_like.llm import LLMRequest, Message, NativeToolCall, TokenUsage
from autobyteus_like.llm._openai import OpenAILLM
from autobyteus_like.tools._call_rules import CallRules, ToolChoice
from tests.llm.provider_helpers import add
from tests.llm.replay_server import Failure, Recorded, ReplayServer, Stream

ADD = LLMRequest("", (Message("user", "What is 2 + 3?"),), tools=(add,))
NO_TOOLS = LLMRequest("", (Message("user", "hi"),))

# llama-cpp-python 0.3.36's answer to an unstreamed request with tool_choice "auto", as sent.
LLAMA_CPP_COMPLETION = json.dumps({
    "id": "chatcmpl-876184c7", "object": "chat.completion", "created": 1795543690,
    "model": "x", "choices": [{"index": 0, "message": {
        "content": None,
        "tool_calls": [{"id": "call__0_add_cmpl-556a66e8", "type": "function",
                        "function": {"name": "add", "arguments": "{ \"a\": 2, \"b\": 3 }"}}],
        "role": "assistant",
        "function_call": {"name": "add:", "arguments": "{ \"a\": 2, \"b\": 3 }"}},
        "logprobs": None, "finish_reason": "tool_calls"}],
    "usage": {"prompt_tokens": 25, "completion_tokens": 14, "total_tokens": 39},
}).encode()
EMPTY_200 = Recorded(b"")  # llama.cpp: "Automatic streaming tool choice is not supported"


def make(server: ReplayServer) -> OpenAILLM:
    return OpenAILLM("smol", provider="llamacpp", base_url=server.base_url, max_retries=0)


def chunks_of(llm: OpenAILLM, request: LLMRequest) -> list:
    return list(llm.stream(request, threading.Event()))


def calls_in(chunks: list) -> list[NativeToolCall]:
    return [call for chunk in chunks for call in chunk.tool_calls]


def test_an_empty_200_to_a_streamed_request_with_tools_is_asked_again_unstreamed():
    completion = Recorded(LLAMA_CPP_COMPLETION, content_type="application/json")
    with ReplayServer([EMPTY_200, completion, completion]) as server:
        llm = make(server)
        first = chunks_of(llm, ADD)
        second = chunks_of(llm, ADD)  # remembered: no streamed attempt this time
    adapted = [chunk.adapted for chunk in first if chunk.adapted is not None]
    assert [(a.what, a.now) for a in adapted] == [("wire", "unstreamed")]
    assert "HTTP 200 ended after 0 bytes without a stream event" in adapted[0].reason
    expected = [NativeToolCall("call__0_add_cmpl-556a66e8", "add", '{ "a": 2, "b": 3 }')]
    assert calls_in(first) == calls_in(second) == expected  # tool_calls only, not both
    assert [chunk.usage for chunk in second if chunk.usage] == [TokenUsage(25, 14)]
    assert [request.get("stream") for request in server.requests] == [True, None, None]
    assert all(request["tool_choice"] == "auto" for request in server.requests)


def test_an_error_event_before_any_output_is_asked_again_unstreamed():
    refused = Stream([{"error": {"message": "streaming with tools is not supported"}}])
    completion = Recorded(LLAMA_CPP_COMPLETION, content_type="application/json")
    with ReplayServer([refused, completion]) as server:
        chunks = chunks_of(make(server), ADD)
    assert [c.adapted.now for c in chunks if c.adapted] == ["unstreamed"]
    assert [call.name for call in calls_in(chunks)] == ["add"]


def test_a_4xx_naming_streaming_is_asked_again_unstreamed_but_another_4xx_is_an_error():
    completion = Recorded(LLAMA_CPP_COMPLETION, content_type="application/json")
    with ReplayServer([Failure(400, {"error": {"message": "stream not supported with tools"}}),
                       completion]) as server:
        assert [c.name for c in calls_in(chunks_of(make(server), ADD))] == ["add"]
    with ReplayServer([Failure(400, {"error": {"message": "unknown model smol"}})]) as server:
        with pytest.raises(LLMError, match="unknown model smol"):
            chunks_of(make(server), ADD)
        assert len(server.requests) == 1


def test_without_tools_an_empty_200_is_an_error_saying_what_came():
    with ReplayServer([EMPTY_200]) as server, pytest.raises(LLMError) as caught:
        chunks_of(make(server), NO_TOOLS)
    assert str(caught.value).startswith(
        "llamacpp smol: HTTP 200 ended after 0 bytes without a stream event: a server that "
        "cannot stream this request fails so after its headers (its log says why)")
    assert caught.value.status == 200


def stream_chunk(delta: dict, finish: str | None = None) -> dict:
    return {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "x",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def test_a_stream_repeating_id_and_name_with_the_legacy_field_beside_gives_one_call():
    pieces = ['{"a": ', '2, "b"', ': 3}']
    chunks = [stream_chunk({"role": "assistant", "content": None,
                            "tool_calls": [{"index": 0, "id": "call_0", "type": "function",
                                            "function": {"name": "add", "arguments": p}}],
                            "function_call": {"name": "add:", "arguments": p}})
              for p in pieces]
    chunks.append(stream_chunk({"tool_calls": None}, finish="tool_calls"))
    with ReplayServer([Stream(chunks)]) as server:
        calls = calls_in(chunks_of(make(server), ADD))
    assert calls == [NativeToolCall("call_0", "add", '{"a": 2, "b": 3}')]


def test_a_stream_with_only_the_legacy_function_call_field_is_read():
    chunks = [stream_chunk({"function_call": {"name": "add", "arguments": '{"a": 1,'}}),
              stream_chunk({"function_call": {"arguments": ' "b": 2}'}}),
              stream_chunk({}, finish="function_call")]
    with ReplayServer([Stream(chunks)]) as server:
        out = chunks_of(make(server), ADD)
    assert calls_in(out) == [NativeToolCall(None, "add", '{"a": 1, "b": 2}')]
    assert out[-1].finish_reason == "tool_calls"


@pytest.mark.parametrize(("choice", "wire"), [
    (None, "auto"), (ToolChoice("none"), "none"),
    (ToolChoice("tool", "add"), {"type": "function", "function": {"name": "add"}}),
])
def test_tool_choice_and_parallel_tool_calls_go_on_every_request_with_tools(choice, wire):
    llm = OpenAILLM("m", base_url="http://127.0.0.1:9/v1", api_key="k")
    body = llm.request_body(LLMRequest("", ADD.messages, ADD.tools,
                                       CallRules(choice, parallel=False)))
    assert (body["tool_choice"], body["parallel_tool_calls"]) == (wire, False)
    assert "tool_choice" not in llm.request_body(NO_TOOLS)


def test_required_with_one_tool_is_sent_as_that_tool_named():
    # llama.cpp's server fails "required" (an empty 200 streamed, a 500 unstreamed) and
    # serves a named tool; with one tool the two mean the same.
    llm = OpenAILLM("m", base_url="http://127.0.0.1:9/v1", api_key="k")
    body = llm.request_body(LLMRequest("", ADD.messages, ADD.tools,
                                       CallRules(ToolChoice("required"))))
    assert body["tool_choice"] == {"type": "function", "function": {"name": "add"}}

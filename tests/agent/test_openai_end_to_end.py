"""Agents on OpenAILLM against the local replay server, in both tool-calling modes."""

from __future__ import annotations

import json
import threading
import time

import pytest

from autobyteus_like import Agent, AgentConfig, AgentStoppedError
from autobyteus_like.events import LLMChunkReceived, LLMResponseCompleted
from autobyteus_like.llm._openai import OpenAILLM
from tests.agent.event_waits import wait_for
from tests.llm.provider_helpers import add, fs_read
from tests.llm.replay_server import ReplayServer, Stream, fixture


def agent(server: ReplayServer, **options) -> Agent:
    llm = OpenAILLM("gpt-4o-mini", base_url=server.base_url, api_key="k")
    return Agent(AgentConfig(name="native", llm=llm, tools=[fs_read, add],
                             system_prompt="Be brief.\n{{tools}}", **options))


def test_native_mode_parallel_calls_results_in_order_and_final_answer():
    replies = [Stream(fixture("openai/parallel_tool_calls")),
               Stream(fixture("openai/final_answer"))]
    with ReplayServer(replies) as server, agent(server, tool_format="native") as running:
        events = running.events()
        assert running.run("read and add", timeout=20) == "Both done: README read, 2+40=42."
        events.close()
    usage = [(e.input_tokens, e.output_tokens) for e in events
             if isinstance(e, LLMResponseCompleted)]
    assert usage == [(120, 44), (180, 12)]  # token usage reported in events
    first, second = server.requests
    assert first["messages"][0] == {"role": "system", "content": "Be brief.\n"}  # no manifest
    assert [t["function"]["name"] for t in first["tools"]] == ["fs_read", "add"]
    assistant, read, added = second["messages"][2:]
    assert [c["id"] for c in assistant["tool_calls"]] == ["call_A1b2C3", "call_D4e5F6"]
    assert [c["function"]["name"] for c in assistant["tool_calls"]] == ["fs_read", "add"]
    assert read == {"role": "tool", "tool_call_id": "call_A1b2C3",
                    "content": "contents of README.md"}
    assert added == {"role": "tool", "tool_call_id": "call_D4e5F6", "content": "42"}


def test_native_mode_invalid_json_arguments_are_fed_back_not_a_crash():
    replies = [Stream(fixture("openai/invalid_json_arguments")), Stream(fixture("openai/text"))]
    with ReplayServer(replies) as server, agent(server, tool_format="native") as running:
        assert running.run("add", timeout=20) == "Hello there."
    tool_message = server.requests[1]["messages"][-1]
    assert tool_message["tool_call_id"] == "call_Bad001"
    error = json.loads(tool_message["content"])["error"]
    assert error["code"] == "PARSE_ERROR"
    assert error["message"].startswith("invalid_json: the arguments of 'add' are not valid JSON")


def test_text_mode_teaches_in_the_prompt_and_sends_no_tools():
    replies = [Stream(fixture("openai/text_format_call")), Stream(fixture("openai/text"))]
    with ReplayServer(replies) as server, agent(server) as running:  # openai -> "openai" format
        assert running.run("1+2?", timeout=20) == "Hello there."
    first, second = server.requests
    assert "tools" not in first and '"tool_calls"' in first["messages"][0]["content"]
    results = second["messages"][-1]
    assert results["role"] == "user" and '"status": "success", "content": 3' in results["content"]


def test_stopping_mid_stream_cuts_the_connection_and_leaves_no_thread():
    stalled = threading.Event()
    first_chunk = fixture("openai/text")[:2]  # the server then goes quiet, connection open
    try:
        with ReplayServer([Stream(first_chunk, stall=stalled)]) as server:
            running = agent(server).start()
            events = running.events()
            reply = running.send("hello?")
            wait_for(events, LLMChunkReceived)
            started = time.perf_counter()
            running.stop()  # the SDK would otherwise wait 60 s for the next byte
            assert time.perf_counter() - started < 5
            with pytest.raises(AgentStoppedError):
                reply.result(timeout=1)
            stalled.set()
    finally:
        stalled.set()

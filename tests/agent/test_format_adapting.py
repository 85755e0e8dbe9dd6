"""tool_format: auto. The turn speaks native; the LLM switches to a text format (XML, then
JSON) for the rest of the session when native calls fail on the server or a required call
never comes, and says so with an LLMAdapted event."""

from __future__ import annotations

from autobyteus_like import Agent, AgentConfig, ScriptedLLM, tool
from autobyteus_like.events import AssistantTextDelta, LLMAdapted, LLMResponseCompleted
from autobyteus_like.llm import NativeToolCall, TokenUsage
from autobyteus_like.llm._openai import OpenAILLM
from autobyteus_like.llm._scripted import ScriptedReply
from tests.llm.replay_server import Failure, ReplayServer, Stream

sums: list[int] = []


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    sums.append(a + b)
    return a + b


XML_CALL = ('Let me add.\n<tool name="add"><arguments><arg name="a">2</arg>'
            '<arg name="b">3</arg></arguments></tool>')
JSON_CALL = '{"name": "add", "arguments": {"a": 4, "b": 4}}'


def text_stream(text: str) -> Stream:
    return Stream([{"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m",
                    "choices": [{"index": 0, "delta": {"content": text},
                                 "finish_reason": "stop"}]}])


def run(llm, **config) -> tuple[str, list]:
    sums.clear()
    agent = Agent(AgentConfig(name="a", llm=llm, tools=[add], tool_format="auto", **config))
    with agent:
        events = agent.events()
        answer = agent.run("What is 2 + 3?", timeout=10)
        agent.stop()
        seen = list(iter(lambda: events.get(timeout=1), None))
    return answer, seen


def test_a_server_refusing_tools_gets_xml_for_the_rest_of_the_session():
    refused = Failure(400, {"error": {"message": "this model does not support tools"}})
    with ReplayServer([refused, text_stream(XML_CALL), text_stream("It is 5.")]) as server:
        answer, seen = run(OpenAILLM("m", base_url=server.base_url, api_key="k"))
    assert (answer, sums) == ("It is 5.", [5])
    [adapted] = [e for e in seen if isinstance(e, LLMAdapted)]
    assert (adapted.what, adapted.now) == ("tool_format", "xml")
    assert "does not support tools" in adapted.reason
    first, second, third = server.requests
    assert "tools" in first and "tools" not in second and "tools" not in third
    assert '<tool name="add">' in second["messages"][0]["content"]  # the XML manifest
    history = third["messages"]
    assert history[-2]["role"] == "assistant" and '<arg name="a">2</arg>' in history[-2]["content"]
    assert history[-1]["role"] == "user" and "5" in history[-1]["content"]


def test_a_required_call_missing_natively_moves_to_xml_and_the_reply_shows_once():
    llm = ScriptedLLM([ScriptedReply("Five, I think.", usage=TokenUsage(10, 3)),
                       ScriptedReply(XML_CALL, usage=TokenUsage(20, 9)), "It is 5."])
    answer, seen = run(llm, tool_choice="required")
    assert (answer, sums) == ("It is 5.", [5])
    shown = "".join(e.text for e in seen if isinstance(e, AssistantTextDelta))
    assert "Five, I think." not in shown and shown.startswith("Let me add.")
    assert [e.now for e in seen if isinstance(e, LLMAdapted)] == ["xml"]
    assert llm.requests[0].tools and not llm.requests[1].tools
    completed = [e for e in seen if isinstance(e, LLMResponseCompleted)]
    assert completed[0].input_tokens == 30  # the redone reply's tokens are counted too


def test_a_required_call_missing_in_xml_too_moves_on_to_json():
    llm = ScriptedLLM(["No.", "Still no.", JSON_CALL, "Eight."])
    answer, seen = run(llm, tool_choice="required")
    assert answer == "Eight."
    assert sums == [8]
    assert [e.now for e in seen if isinstance(e, LLMAdapted)] == ["xml", "json"]


def test_native_calls_that_work_stay_native():
    native = ScriptedReply(tool_calls=(NativeToolCall("c1", "add", '{"a": 2, "b": 3}'),))
    llm = ScriptedLLM([native, "It is 5."])
    answer, seen = run(llm, tool_choice="required")
    assert (answer, sums) == ("It is 5.", [5])
    assert not any(isinstance(e, LLMAdapted) for e in seen)


def test_a_text_call_that_cannot_be_read_is_a_parse_error_in_the_formats_terms():
    broken = '<tool name="add"><arguments><arg name="a">2</arg>'  # cut off
    refused = Failure(400, {"error": {"message": "tools are not supported"}})
    with ReplayServer([refused, text_stream(broken), text_stream(XML_CALL),
                       text_stream("5")]) as server:
        answer, _ = run(OpenAILLM("m", base_url=server.base_url, api_key="k"))
    assert (answer, sums) == ("5", [5])
    told = server.requests[2]["messages"][-1]["content"]
    assert "write the call again in the xml format" in told

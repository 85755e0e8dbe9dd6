"""Which format a member gets, by one precedence: an explicit tool_format (or
use_xml_tool_format) > the stored eval verdict > what auto learned on that server > native
function calling where the provider has it (a real provider's member without tool_format is
auto) > the provider's text format; a ScriptedLLM keeps its declared format."""

from __future__ import annotations

import pytest

from autobyteus_like import Agent, AgentConfig, ScriptedLLM, tool
from autobyteus_like.agent._format_adapting import FormatAdaptingLLM
from autobyteus_like.agent._member_llm import format_choice, format_lines
from autobyteus_like.events import LLMAdapted
from autobyteus_like.llm._openai import OpenAILLM
from autobyteus_like.llm._spec import LLMSpec
from autobyteus_like.store._model_formats import ModelFormats, ModelKey
from tests.llm.replay_server import Failure, ReplayServer, Stream

SPEC = LLMSpec.model_validate({"provider": "llamacpp", "model": "smol",
                               "base_url": "http://127.0.0.1:9/v1"})
KEY = ModelKey("llamacpp", "http://127.0.0.1:9/v1", "smol")


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def test_the_precedence_step_by_step():
    table = ModelFormats.cached()
    assert format_choice("execute", True, SPEC, table) == ("execute",
                                                           "tool_format in the config")
    assert format_choice(None, True, SPEC, table) == ("xml", "use_xml_tool_format in the config")
    chosen, why = format_choice(None, False, SPEC, table)
    assert chosen == "native" and why.startswith("auto, the default where the provider calls "
                                                 "tools natively: native function calling")
    table.learn(KEY, "json", "native tool calling failed on this server (HTTP 500)")
    assert format_choice(None, False, SPEC, table)[0] == "json"
    table.judge(KEY, "xml", {})
    chosen, why = format_choice("auto", False, SPEC, table)
    assert chosen == "xml" and "the eval-formats verdict for llamacpp smol" in why
    assert format_choice("tool_call", False, SPEC, table)[0] == "tool_call"  # explicit wins


@pytest.mark.parametrize(("llm", "expected"), [
    ({"provider": "scripted", "imitates": "anthropic", "responses": []}, "xml"),
    ({"provider": "scripted", "responses": []}, "json"),
    ({"provider": "scripted", "imitates": "openai", "responses": []}, "openai"),
])
def test_a_scripted_llm_keeps_its_declared_format(llm, expected):
    config = AgentConfig(name="a", llm=llm)
    assert not config.adapts_format() and config.resolved_format() == expected
    assert format_choice(None, False, config.llm)[0] == expected
    assert format_choice(None, False, LLMSpec.model_validate(llm))[0] == expected


def test_a_real_provider_without_tool_format_is_auto():
    config = AgentConfig(name="a", llm=OpenAILLM("m", base_url="http://127.0.0.1:9/v1",
                                                 api_key="k"))
    assert config.adapts_format() and config.resolved_format() == "native"
    assert isinstance(config.build_llm(), FormatAdaptingLLM)
    explicit = config.model_copy(update={"tool_format": "json"})
    assert not explicit.adapts_format() and explicit.resolved_format() == "json"
    xml = config.model_copy(update={"use_xml_tool_format": True})
    assert not xml.adapts_format() and xml.resolved_format() == "xml"


def test_by_default_a_server_without_native_tools_gets_a_text_format():
    refused = Failure(400, {"error": {"message": "this model does not support tools"}})
    xml_call = Stream([{"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m",
                        "choices": [{"index": 0, "finish_reason": "stop", "delta": {
                            "content": '<tool name="add"><arguments><arg name="a">2</arg>'
                                       '<arg name="b">3</arg></arguments></tool>'}}]}])
    answer = Stream([{"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m",
                      "choices": [{"index": 0, "delta": {"content": "5"},
                                   "finish_reason": "stop"}]}])
    with ReplayServer([refused, xml_call, answer]) as server:
        agent = Agent(AgentConfig(name="a", tools=[add], llm=OpenAILLM(
            "m", base_url=server.base_url, api_key="k", max_retries=0)))  # no tool_format
        with agent:
            events = agent.events()
            assert agent.run("2 + 3?", timeout=20) == "5"
            agent.stop()
            seen = list(iter(lambda: events.get(timeout=1), None))
    assert "tools" in server.requests[0]  # native first: the provider has it
    assert [e.now for e in seen if isinstance(e, LLMAdapted)] == ["xml"]


def test_the_lines_validate_and_the_live_view_print():
    members = [AgentConfig(name="lead", llm=SPEC),
               AgentConfig(name="coder", llm=ScriptedLLM([]), tool_format="json")]
    lead, coder = format_lines(members)
    assert lead.startswith("lead uses native (auto, the default where the provider calls tools "
                           "natively")
    assert coder == "coder uses json (tool_format in the config)"


def test_run_starts_by_saying_which_format_each_member_uses(tmp_path, capsys):
    from autobyteus_like.cli import main

    team = tmp_path / "t.yaml"
    team.write_text("name: t\ncoordinator: a\nmembers:\n  - name: a\n"
                    "    llm: {provider: scripted, responses: [hi]}\n")
    assert main(["run", str(team), "-m", "hello"]) == 0
    out = " ".join(capsys.readouterr().out.split())  # rich wraps long lines
    assert "a uses json (the scripted provider's text format: it calls no tools natively)" \
        in out

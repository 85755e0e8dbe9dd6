"""Typed output end to end: a scripted model that first answers wrongly, in every format."""

from __future__ import annotations

import dataclasses
import json

import pytest
from pydantic import BaseModel, field_validator
from typing_extensions import TypedDict

from autobyteus_like import Agent, AgentConfig, AgentTurnError, ScriptedLLM
from autobyteus_like.errors import ModelRetry, OutputValidationError
from autobyteus_like.events import TurnCompleted
from autobyteus_like.formats import builtin_format
from autobyteus_like.llm._messages import NativeToolCall
from autobyteus_like.llm._scripted import ScriptedReply
from autobyteus_like.output import FINAL_RESULT
from autobyteus_like.tools import tool

TEXT_FORMATS = ["xml", "json", "openai", "gemini", "execute", "tool_call"]


class City(BaseModel):
    name: str
    population: int

    @field_validator("name")
    @classmethod
    def _capitalised(cls, value: str) -> str:
        if not value[:1].isupper():
            raise ValueError("a city's name starts with a capital letter")
        return value


def _call(fmt: str, arguments: dict[str, object]) -> str | ScriptedReply:
    if fmt == "native":
        return ScriptedReply(tool_calls=(NativeToolCall("c1", FINAL_RESULT,
                                                        json.dumps(arguments)),))
    return builtin_format(fmt).formatter.format_call(FINAL_RESULT, arguments)


@pytest.mark.parametrize("fmt", [*TEXT_FORMATS, "native"])
def test_a_wrong_answer_is_sent_back_with_pydantics_words_then_the_right_one_is_returned(fmt):
    llm = ScriptedLLM([_call(fmt, {"name": "paris", "population": "many"}),
                       _call(fmt, {"name": "Paris", "population": 2100000})],
                      provider="openai")
    config = AgentConfig(name="geo", llm=llm, tool_format=fmt, output_type=City)
    with Agent(config) as agent:
        city = agent.run("The capital of France?", timeout=10)
    assert city == City(name="Paris", population=2100000)
    assert type(city) is City
    sent_back = llm.requests[1].messages[-1]
    text = sent_back.content if fmt != "native" else json.dumps(
        [r.model_dump(mode="json") for r in sent_back.tool_results])
    assert "INVALID_ARGS" in text
    assert "valid integer" in text and "capital letter" in text  # pydantic's own words
    if fmt != "native":
        assert FINAL_RESULT in llm.requests[0].system_prompt  # taught in the format's manifest
        assert not any(m.tool_calls or m.tool_results for m in llm.requests[1].messages)
    else:
        assert [t.name for t in llm.requests[0].tools] == [FINAL_RESULT]


def test_too_many_wrong_answers_end_the_turn_with_output_validation_error():
    wrong = _call("xml", {"name": "Paris", "population": "lots"})
    llm = ScriptedLLM([wrong, wrong, wrong, "never used"])
    config = AgentConfig(name="geo", llm=llm, tool_format="xml", output_type=City,
                         output_retries=2)
    with Agent(config) as agent, pytest.raises(OutputValidationError) as caught:
        agent.run("The capital of France?", timeout=10)
    assert isinstance(caught.value, AgentTurnError)
    assert caught.value.attempts == 3 and "population" in caught.value.problems[0]
    assert len(llm.requests) == 3  # the original answer and output_retries=2 corrections


def test_an_answer_written_as_text_is_told_to_use_the_tool_or_accepted_when_it_fits():
    llm = ScriptedLLM(["It is Paris, with about two million people.",
                       '```json\n{"name": "Paris", "population": 2100000}\n```'])
    with Agent(AgentConfig(name="geo", llm=llm, tool_format="json",
                           output_type=City)) as agent:
        assert agent.run("The capital of France?", timeout=10).population == 2100000
    note = llm.requests[1].messages[-1]
    assert note.role == "user" and FINAL_RESULT in note.content


def test_a_validator_sends_the_answer_back_with_its_reason():
    seen = []

    def not_tokyo(city: City) -> None:
        seen.append(city.name)
        if city.name == "Tokyo":
            raise ModelRetry("the question was about France")

    llm = ScriptedLLM([_call("tool_call", {"name": "Tokyo", "population": 14000000}),
                       _call("tool_call", {"name": "Paris", "population": 2100000})])
    config = AgentConfig(name="geo", llm=llm, tool_format="tool_call", output_type=City,
                         output_validators=[not_tokyo])
    with Agent(config) as agent:
        assert agent.run("The capital of France?", timeout=10).name == "Paris"
    assert seen == ["Tokyo", "Paris"]
    assert "the question was about France" in llm.requests[1].messages[-1].content


@dataclasses.dataclass
class Point:
    x: int
    y: int = 0


class Pair(TypedDict):
    left: str
    right: str


@pytest.mark.parametrize(("output_type", "arguments", "expected"), [
    (Point, {"x": "3"}, Point(3, 0)),
    (Pair, {"left": "a", "right": "b"}, {"left": "a", "right": "b"}),
    (list[int], {"result": [1, "2"]}, [1, 2]),
    (int, {"result": "42"}, 42),
    (str, {"result": "plain"}, "plain"),
])
def test_every_kind_of_type_is_a_final_result_tool(output_type, arguments, expected):
    llm = ScriptedLLM([_call("xml", arguments)])
    with Agent(AgentConfig(name="t", llm=llm, tool_format="xml",
                           output_type=output_type)) as agent:
        assert agent.run("go", timeout=10) == expected


def test_a_json_schema_output_returns_the_json_value():
    schema = {"type": "object", "properties": {"city": {"type": "string"}},
              "required": ["city"]}
    llm = ScriptedLLM([_call("json", {}), _call("json", {"city": "Paris"})])
    with Agent(AgentConfig(name="t", llm=llm, tool_format="json",
                           output_schema=schema)) as agent:
        assert agent.run("go", timeout=10) == {"city": "Paris"}
    assert "city" in llm.requests[1].messages[-1].content  # the missing field was named


def test_the_answer_travels_as_json_in_events_and_other_tools_run_first():
    @tool
    def lookup(city: str) -> int:
        """Population of a city."""
        return 2100000

    llm = ScriptedLLM([builtin_format("xml").formatter.format_call("lookup", {"city": "Paris"}),
                       _call("xml", {"name": "Paris", "population": 2100000})])
    config = AgentConfig(name="geo", llm=llm, tool_format="xml", output_type=City,
                         tools=[lookup], auto_execute_tools=False)  # final_result never asks
    with Agent(config) as agent, agent.events() as events:
        reply = agent.send("The capital of France?")
        # lookup waits for approval; final_result will not
        from autobyteus_like.events import ApprovalRequested
        from tests.agent.event_waits import wait_for

        asked = wait_for(events, ApprovalRequested)[0]
        agent.approve(asked.invocation.id)
        completed = wait_for(events, TurnCompleted)[0]
        assert json.loads(reply.result(10)) == {"name": "Paris", "population": 2100000}
    assert json.loads(completed.answer) == {"name": "Paris", "population": 2100000}
    history = agent.history  # every call has its result, final_result's too
    assert [m.role for m in history] == ["system", "user", "assistant", "tool", "assistant",
                                         "tool"]


def test_yaml_names_the_type_and_a_bad_name_is_a_located_error():
    config = AgentConfig.model_validate({"name": "t", "llm": {"provider": "scripted",
                                                               "responses": []},
                                         "output_type": "tests.handlers.test_output_check:City"})
    assert config.output_spec() is not None and config.output_spec().output_type is City
    with pytest.raises(ValueError, match="no 'Nope'"):
        AgentConfig.model_validate({"name": "t", "llm": {"provider": "scripted",
                                                          "responses": []},
                                    "output_type": "tests.handlers.test_output_check:Nope"})
    with pytest.raises(ValueError, match="not both"):
        AgentConfig(name="t", llm=ScriptedLLM([]), output_type=int, output_schema={})


def test_a_yaml_name_must_name_a_type():
    with pytest.raises(ValueError, match="is a builtin_function_or_method, not a type"):
        AgentConfig.model_validate({"name": "t", "llm": {"provider": "scripted",
                                                          "responses": []},
                                    "output_type": "os:getcwd"})


@pytest.mark.slow  # the stop waits for the blocked validator up to its deadline
def test_an_answer_being_checked_when_the_agent_stops_is_checked_again_on_resume(tmp_path):
    """final_result is idempotent: stopped while its validator ran, the resumed turn runs it
    again and ends with the typed answer (nothing INTERRUPTED for the model to puzzle over)."""
    import threading

    from autobyteus_like.store import Session

    started, release, runs = threading.Event(), threading.Event(), []

    def slow_check(city: City) -> None:
        runs.append(city.name)
        started.set()
        release.wait(10)

    url = str(tmp_path / "s.db")
    script = [_call("xml", {"name": "Paris", "population": 2100000})]

    def agent() -> Agent:
        return Agent(AgentConfig(name="geo", llm=ScriptedLLM(script), tool_format="xml",
                                 output_type=City, output_validators=[slow_check]),
                     session=Session("s", url))

    first = agent()
    with first:
        first.send("The capital of France?")
        assert started.wait(10)
    first.session.close()
    release.set()
    second = agent()
    with second:
        [turn] = second.resume()
        assert second.answer(turn.reply.result(10)) == City(name="Paris", population=2100000)
    second.session.close()
    assert runs == ["Paris", "Paris"]

"""The simulation kit decides approvals (approve all, deny all, a function with a reason),
ends a run stuck on a decision nobody gives with ``Transcript.error`` naming the call (never a
``TimeoutError``), and tests one agent the same way without a team."""

from __future__ import annotations

import json
import time

import pytest
from pydantic import BaseModel

from autobyteus_like import AgentConfig, ScriptedLLM, TeamConfig, tool
from autobyteus_like.llm._messages import LLMRequest
from autobyteus_like.testing import FunctionLLM, scripted_agent, scripted_team

launched: list[str] = []


@tool(requires_approval=True)
def launch(target: str) -> str:
    """Launch at a target."""
    launched.append(target)
    return f"launched at {target}"


def call(target: str) -> str:
    return json.dumps({"name": "launch", "arguments": {"target": target}})


@pytest.fixture(autouse=True)
def _fresh() -> None:
    launched.clear()


def _team() -> TeamConfig:
    return TeamConfig(name="t", coordinator="pilot", members=[
        AgentConfig(name="pilot", llm=ScriptedLLM([]), tools=[launch], tool_format="json")])


def test_approve_all_runs_the_marked_call():
    with scripted_team(_team(), {"pilot": [call("moon"), "up"]}, approvals="approve") as team:
        transcript = team.run("go")
    transcript.assert_all_consumed()
    assert transcript.answer == "up" and launched == ["moon"]


def test_deny_all_never_runs_it_and_the_model_reads_the_denial():
    with scripted_team(_team(), {"pilot": [call("moon"), "refused"]}, approvals="deny") as team:
        transcript = team.run("go")
    transcript.assert_all_consumed()
    assert launched == []
    [result] = transcript.tool_results("pilot")
    assert result.error is not None and result.error.code.value == "DENIED"
    shown = transcript.requests("pilot")[1].messages[-1].content
    assert "denied by the test's approval policy" in shown


def test_a_function_decides_per_call_with_a_reason():
    def decide(agent: str, invocation) -> bool | str:
        return True if invocation.arguments["target"] == "moon" else "not mars"

    script = [call("moon") + "\n" + call("mars"), "half done"]
    with scripted_team(_team(), {"pilot": script}, approvals=decide) as team:
        transcript = team.run("go")
    transcript.assert_all_consumed()
    assert launched == ["moon"]
    assert "denied: not mars" in transcript.requests("pilot")[1].messages[-1].content


def test_a_run_nobody_decides_ends_with_an_error_naming_the_waiting_call():
    started = time.monotonic()
    with scripted_team(_team(), {"pilot": [call("moon"), "never"]}) as team:
        transcript = team.run("go", timeout=20)
    assert time.monotonic() - started < 10  # it ends when it is stuck, not at the timeout
    assert transcript.error is not None
    assert transcript.error.startswith("WaitingForApproval: pilot's call launch (")
    assert "waits for approval and nothing decides it" in transcript.error
    assert launched == [] and transcript.answer == ""
    with pytest.raises(AssertionError, match="WaitingForApproval"):
        transcript.assert_ok()


class Verdict(BaseModel):
    ok: bool


def test_one_agent_without_a_team_a_real_provider_config_and_a_typed_answer():
    config = AgentConfig(name="solo", llm={"provider": "openai", "model": "gpt-4o-mini"},
                         tools=[launch], output_type=Verdict)
    answer = json.dumps({"tool_calls": [{"function": {"name": "final_result",
                                                      "arguments": {"ok": True}}}]})
    first = json.dumps({"tool_calls": [{"function": {"name": "launch",
                                                     "arguments": {"target": "moon"}}}]})
    with scripted_agent(config, [first, answer], approvals="approve") as agent:
        transcript = agent.run("go")
    transcript.assert_all_consumed()
    assert transcript.answer == Verdict(ok=True) and launched == ["moon"]


def test_one_agent_left_waiting_and_a_function_model():
    config = AgentConfig(name="solo", llm=ScriptedLLM([]), tools=[launch], tool_format="json")
    with scripted_agent(config, [call("moon"), "never"]) as agent:
        transcript = agent.run("go", timeout=20)
    assert transcript.error is not None and transcript.error.startswith(
        "WaitingForApproval: solo's call launch (")

    def answer(request: LLMRequest) -> str:
        return f"you said {request.messages[-1].content}"

    llm = FunctionLLM(answer)
    with scripted_agent(config, llm) as agent:
        assert agent.run("hi").answer == "you said hi"
        assert agent.run("again").answer == "you said again"
    assert len(llm.requests) == 2

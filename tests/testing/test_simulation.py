"""The simulation kit: scripted teams, transcripts, and the pytest fixture."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from autobyteus_like import AgentConfig, ScriptedLLM, TeamConfig
from autobyteus_like.testing import Transcript, scripted_team

EXAMPLES = Path(__file__).parent.parent.parent / "examples"


def load_example_tools():
    import importlib.util

    spec = importlib.util.spec_from_file_location("example_tools", EXAMPLES / "example_tools.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.make_tools()


def send(to: str, content: str) -> str:
    return json.dumps({"name": "send_message_to",
                       "arguments": {"recipient_name": to, "content": content}})


def test_transcript_of_a_yaml_team():
    with scripted_team(EXAMPLES / "research_team.yaml", tools=load_example_tools(),
                       approvals="approve") as team:
        transcript = team.run("Summarise the notes")
    assert transcript.answer == "Summary: a.txt has 3 words and b.txt has 5."
    transcript.assert_all_consumed()
    assert [c.name for c in transcript.tool_calls("planner")] == [
        "write_file", "write_file", "send_message_to"]
    assert [r.content for r in transcript.tool_results("analyst")][:2] == [
        "actors pass messages", [3, 5]]
    assert [(m.sender, m.recipient) for m in transcript.messages()] == [
        (None, "planner"), ("planner", "analyst"), ("analyst", "planner")]
    assert transcript.requests("analyst")[0].messages[0].content.startswith(
        "Message from planner:")
    assert transcript.tool_calls("analyst")[0].why == "Need the first note."
    assert all(e.agent == "analyst" for e in transcript.for_agent("analyst"))


def test_scripts_replace_the_configured_responses_and_unused_ones_are_reported():
    config = TeamConfig(name="t", coordinator="lead", members=[
        AgentConfig(name="lead", llm=ScriptedLLM([]), tools=["send_message_to"],
                    tool_format="json")])
    with scripted_team(config, {"lead": ["hello", "never used"]}) as team:
        transcript = team.run("hi")
    assert transcript.answer == "hello" and transcript.error is None
    with pytest.raises(AssertionError, match="scripted responses left unused: lead: 1"):
        transcript.assert_all_consumed()
    with pytest.raises(ValueError, match="scripts for unknown members: ghost"):
        scripted_team(config, {"ghost": []})


def test_a_failed_run_is_recorded_not_raised():
    config = TeamConfig(name="t", coordinator="a", members=[
        AgentConfig(name="a", llm=ScriptedLLM([]))])
    with scripted_team(config) as team:
        transcript = team.run("hi")
    assert "ran out of responses" in transcript.error
    assert transcript.errors("a")[0].error_type == "TurnFailed"


def test_the_pytest_fixture(scripted_team):
    config = TeamConfig(name="t", coordinator="lead", members=[
        AgentConfig(name="lead", llm=ScriptedLLM([]), tools=["send_message_to"],
                    tool_format="json"),
        AgentConfig(name="helper", llm=ScriptedLLM([]), tools=["send_message_to"],
                    tool_format="json")])
    team = scripted_team(config, {"lead": [send("helper", "ping"), "sent", "helper answered"],
                                  "helper": [send("lead", "pong"), "done"]})
    transcript: Transcript = team.run("start")
    assert transcript.answer == "helper answered"
    transcript.assert_all_consumed()


def test_a_failed_run_fails_the_test_even_when_every_script_was_used():
    config = TeamConfig(name="t", coordinator="lead", members=[
        AgentConfig(name="lead", llm=ScriptedLLM([]), tools=["send_message_to"],
                    tool_format="json")])
    with scripted_team(config, {"lead": [send("lead", "hm")]}) as team:
        transcript = team.run("hi")  # the script runs out after the call
    assert transcript.answer == "" and "ran out of responses" in transcript.error
    with pytest.raises(AssertionError, match="the run failed: AgentTurnError"):
        transcript.assert_all_consumed()
    with pytest.raises(AssertionError, match="ran out of responses"):
        transcript.assert_ok()


def test_a_usage_limit_and_a_member_s_failed_turn_follow_the_same_rule():
    config = TeamConfig(name="t", coordinator="lead", limits={"max_tool_calls": 1}, members=[
        AgentConfig(name="lead", llm=ScriptedLLM([]), tools=["send_message_to"],
                    tool_format="json"),
        AgentConfig(name="helper", llm=ScriptedLLM([]))])
    with scripted_team(config, {"lead": [send("helper", "a") + send("helper", "b"), "x"],
                                "helper": ["ok"]}) as team:
        transcript = team.run("hi")  # recorded, not raised
    assert transcript.error.startswith("UsageLimitExceededError: usage limit max_tool_calls=1")
    with pytest.raises(AssertionError, match="max_tool_calls"):
        transcript.assert_ok()
    config = config.model_copy(update={"limits": None})
    with scripted_team(config, {"lead": [send("helper", "a"), "sent", "carried on"],
                                "helper": []}) as team:
        transcript = team.run("hi")
    assert transcript.error is None and transcript.answer == "carried on"
    [failed] = transcript.failed_turns()
    assert failed.agent == "helper" and "ran out of responses" in failed.error
    with pytest.raises(AssertionError, match="helper's turn 1 failed"):
        transcript.assert_all_consumed()

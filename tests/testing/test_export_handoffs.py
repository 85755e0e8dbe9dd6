"""A session where the conversation was handed over (issue 37) exports as a test that replays:
the handoff runs again as the team's own tool (not a recorded stand-in), so the receiver goes
on, the next message goes to the holder, and a replay that stops handing over is named."""

from __future__ import annotations

import json

import pytest
import yaml

from autobyteus_like import AgentConfig, AgentTeam, ScriptedLLM, TeamConfig, tool
from autobyteus_like.store import Session
from autobyteus_like.testing import export_session, replay_export


@tool
def note(text: str) -> str:
    """Take a note."""
    return f"noted {text}"


def _calls(*calls: tuple[str, dict]) -> str:
    return json.dumps([{"name": name, "arguments": arguments} for name, arguments in calls])


def test_a_handed_over_session_replays_and_a_lost_handoff_is_named(tmp_path):
    triage = AgentConfig(name="triage", tool_format="json", tools=["note"],
                         handoffs=["billing"], llm=ScriptedLLM([_calls(
                             ("note", {"text": "a"}),
                             ("transfer_to_billing", {"reason": "money"}))]))
    billing = AgentConfig(name="billing", tool_format="json",
                          llm=ScriptedLLM(["refunded", "you are welcome"]))
    config = TeamConfig(name="desk", coordinator="triage", members=[triage, billing])
    with Session("h1", tmp_path / "s.db") as session:
        with AgentTeam(config, tools=[note], session=session) as team:
            assert team.run("refund me", timeout=20) == "refunded"
            assert team.run("thanks", timeout=20) == "you are welcome"  # to the holder
        export_session(session.store, "h1", tmp_path / "t")
    team_file = tmp_path / "t" / "team.yaml"
    exported = yaml.safe_load(team_file.read_text())
    [triage_entry] = [m for m in exported["members"] if m["name"] == "triage"]
    assert triage_entry["handoffs"] == ["billing"]
    assert "transfer_to_billing" not in triage_entry["tools"]  # the team makes it
    replay_export(tmp_path / "t", tmp_path / "run")  # passes as recorded

    # the same replies without the handoff: the replay says what changed
    triage_entry["handoffs"] = []
    triage_entry["llm"]["responses"][0]["text"] = _calls(("note", {"text": "a"}))
    team_file.write_text(yaml.safe_dump(exported, sort_keys=False))
    with pytest.raises(AssertionError, match="transfer_to_billing"):
        replay_export(tmp_path / "t", tmp_path / "run2")


def test_a_session_with_members_asked_as_tools_replays_with_request_checks(tmp_path):
    """``ask:NAME`` in the recorded team becomes the ``ask_NAME`` tool answered by its recorded
    result (the callee's answer), and a member is taught mail only where it was."""
    lead = AgentConfig(name="lead", tool_format="json", tools=["ask:researcher"],
                       llm=ScriptedLLM([_calls(("ask_researcher", {"request": "q1"}),
                                               ("ask_researcher", {"request": "q2"})),
                                        "lead done"]))
    researcher = AgentConfig(name="researcher", tool_format="json",
                             llm=ScriptedLLM(["a1", "a2"]))
    config = TeamConfig(name="t", coordinator="lead", members=[lead, researcher])
    with Session("m1", tmp_path / "s.db") as session:
        with AgentTeam(config, session=session) as team:
            assert team.run("go", timeout=20) == "lead done"
        export_session(session.store, "m1", tmp_path / "t")
    exported = yaml.safe_load((tmp_path / "t" / "team.yaml").read_text())
    assert exported["members"][0]["tools"] == ["ask_researcher"]
    replay_export(tmp_path / "t", tmp_path / "run", check_requests=True)

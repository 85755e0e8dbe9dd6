"""kill -9 around a handoff, then resume in a new process: the handoff is recorded with its
receiver or not at all (``sessions.holder`` moves in the same transaction as the handoff
call's result), no tool runs twice, and the receiver ends up answering with the whole
conversation."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from autobyteus_like import AgentConfig, AgentTeam, ScriptedLLM, TeamConfig, tool
from autobyteus_like.history._replay import history_problems
from autobyteus_like.store import Session
from tests.store.test_kill_at_each_stage import killed_when_reached

RESPONSE = json.dumps([{"name": "record", "arguments": {"note": "a"}},
                       {"name": "transfer_to_billing", "arguments": {"reason": "money"}}])

CHILD = '''
import json, os, sys, time
from autobyteus_like import AgentConfig, AgentHooks, AgentTeam, ScriptedLLM, TeamConfig, tool
from autobyteus_like.store import Session

store, folder, stage, response = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]

def reached():
    with open(os.path.join(folder, "reached"), "w") as marker:
        marker.write(stage)
    time.sleep(3600)  # the parent kills this process now

@tool
def record(note: str) -> str:
    """Appends a note (an effect that must not happen twice)."""
    fd = os.open(os.path.join(folder, "effects"), os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    os.write(fd, (note + "\\n").encode())
    os.close(fd)
    if stage == "during_other_call":
        reached()
    return "recorded " + note

class Stages(AgentHooks):  # called after the session writer stored the step
    def __init__(self, member):
        self.member = member
    def call_running(self, turn, call):
        if stage == "handoff_running" and call.invocation.name == "transfer_to_billing":
            reached()
    def call_finished(self, turn, call):
        if stage == "handoff_stored" and call.invocation.name == "transfer_to_billing":
            reached()
    def turn_ended(self, turn, messages, answer, error):
        if stage == "caller_turn_ended":
            reached()
    def message_received(self, message):
        if stage == "receiver_took" and self.member == "billing":
            reached()
    def request_sent(self, turn, messages):
        if stage == "receiver_asked" and self.member == "billing":
            reached()

triage = AgentConfig(name="triage", llm=ScriptedLLM([response]), tools=["record"],
                     handoffs=["billing"], tool_format="json", hooks=[Stages("triage")])
billing = AgentConfig(name="billing", llm=ScriptedLLM(["billing here"] * 2),
                      tool_format="xml", hooks=[Stages("billing")])
config = TeamConfig(name="desk", coordinator="triage", members=[triage, billing])
with Session("s1", store) as session, AgentTeam(config, tools=[record], session=session) as team:
    team.run("refund please", timeout=60)
'''

STAGES = ["during_other_call", "handoff_stored", "caller_turn_ended", "receiver_took"]
"""Killed while the other call of the response runs (its body started), once the handoff's
result and holder are stored, once the caller's turn ended with its message to the
receiver stored but not delivered, and once the receiver took that message (stored as
delivered, its turn queued) before its first turn stored the conversation (the child
also knows ``handoff_running``, the handoff committed as running, and ``receiver_asked``,
the receiver's first request sent: both pass, left out for the suite's time)."""

effects: list[str] = []


@tool
def record(note: str) -> str:
    """Appends a note (an effect that must not happen twice)."""
    effects.append(note)
    return "recorded " + note


@pytest.mark.slow  # a child process each: seconds
@pytest.mark.parametrize("stage", STAGES)
def test_killed_around_a_handoff_the_resume_hands_over_once(tmp_path: Path, stage: str) -> None:
    store = str(tmp_path / "s.db")
    killed_when_reached([CHILD, store, str(tmp_path), stage, RESPONSE], tmp_path, stage)
    with Session("s1", store) as session:  # recorded with its receiver, or not at all
        [transfer] = [c for c in session.store.calls("s1", "triage")
                      if c.name == "transfer_to_billing"]
        assert (session.holder() == "billing") == (transfer.result is not None)
        assert session.holder() in (None, "billing")
    effects.clear()
    triage = AgentConfig(name="triage", llm=ScriptedLLM([RESPONSE, "triage again"]),
                         tools=["record"], handoffs=["billing"], tool_format="json")
    billing = AgentConfig(name="billing", llm=ScriptedLLM(["billing here"] * 3),
                          tool_format="xml")
    config = TeamConfig(name="desk", coordinator="triage", members=[triage, billing])
    with Session("s1", store) as session, \
            AgentTeam(config, tools=[record], session=session) as team:
        assert team.resume(timeout=30) == "billing here"
        assert session.holder() == "billing"
        history = team.agents["billing"].history  # type: ignore[attr-defined]
    before = Counter((tmp_path / "effects").read_text().split()) \
        if (tmp_path / "effects").exists() else Counter()
    assert before["a"] + effects.count("a") == 1  # the other call ran once in all
    assert history_problems(history) == []
    users = [m.content for m in history if m.role == "user"]
    assert users[0] == "refund please"
    assert sum("handed this conversation over" in text for text in users) == 1
    results = next(m for m in history if m.role == "tool").results
    assert [r.tool_name for r in results] == ["record", "transfer_to_billing"]

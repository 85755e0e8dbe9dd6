"""kill -9 while a member-as-tool call is in flight, then resume (docs/teams.md): the callee's
stored answer is used if it finished, its turn resumes if it was in the middle, and no tool of
the callee runs twice. A child process runs a team on a SQLite session and is killed at a
marker; this process resumes the same session."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from autobyteus_like import AgentConfig, AgentTeam, ScriptedLLM, TeamConfig, tool
from autobyteus_like.store import Session
from autobyteus_like.tools._invocation import MAY_HAVE_RUN
from tests.store.test_kill_at_each_stage import killed_when_reached

LEAD = [json.dumps([{"name": "ask_clerk", "arguments": {"request": "pay 7"}}]), "lead done"]
CLERK = [json.dumps([{"name": "pay", "arguments": {"amount": 7}}]), "clerk paid"]

CHILD = '''
import json, os, sys, time
from autobyteus_like import AgentConfig, AgentTeam, ScriptedLLM, TeamConfig, tool
from autobyteus_like.hooks import AgentHooks
from autobyteus_like.store import Session

store, folder, stage, lead_script, clerk_script = sys.argv[1:6]

def reached():
    with open(os.path.join(folder, "reached"), "w") as marker:
        marker.write(stage)
    time.sleep(3600)  # killed here

@tool
def pay(amount: int) -> str:
    """Pays an amount (an effect that must not happen twice)."""
    with open(os.path.join(folder, "ledger"), "a") as ledger:
        ledger.write(f"{amount}\\n")
    if stage == "callee_tool":
        reached()  # paid; the clerk's result never stored
    return f"paid {amount}"

class KilledOnceAnswered(AgentHooks):
    def wrap_tool_call(self, call, call_next):
        value = call_next(call)
        reached()  # the clerk answered; the lead's call has no stored result
        return value

hooks = [KilledOnceAnswered()] if stage == "callee_answered" else []
lead = AgentConfig(name="lead", llm=ScriptedLLM(json.loads(lead_script)), tool_format="json",
                   tools=["ask:clerk"], hooks=hooks)
clerk = AgentConfig(name="clerk", llm=ScriptedLLM(json.loads(clerk_script)),
                    tool_format="json", tools=["pay"])
config = TeamConfig(name="t", coordinator="lead", members=[lead, clerk])
with AgentTeam(config, tools=[pay], session=Session("s1", store)) as team:
    team.run("go", timeout=60)
'''


@pytest.mark.parametrize("stage", ["callee_tool", "callee_answered"])
def test_killed_mid_call_the_resume_runs_no_tool_of_the_callee_twice(stage, tmp_path: Path):
    store = str(tmp_path / "sessions.db")
    killed_when_reached([CHILD, store, str(tmp_path), stage, json.dumps(LEAD),
                         json.dumps(CLERK)], tmp_path, stage)
    ran: list[int] = []

    @tool
    def pay(amount: int) -> str:
        """Pays an amount (an effect that must not happen twice)."""
        ran.append(amount)
        return f"paid {amount}"

    lead = AgentConfig(name="lead", llm=ScriptedLLM(LEAD), tool_format="json",
                       tools=["ask:clerk"])
    clerk_llm = ScriptedLLM(CLERK)
    clerk = AgentConfig(name="clerk", llm=clerk_llm, tool_format="json", tools=["pay"])
    config = TeamConfig(name="t", coordinator="lead", members=[lead, clerk])
    with AgentTeam(config, tools=[pay], session=Session("s1", store)) as team:
        assert team.resume(timeout=30) == "lead done"
    assert ran == []  # paid once, in the killed process
    assert (tmp_path / "ledger").read_text().split() == ["7"]
    shown = json.loads(lead.llm.requests[-1].messages[-1].content.splitlines()[1])[
        "tool_result"]["content"]
    assert shown == "clerk paid"
    if stage == "callee_tool":  # the clerk's turn went on: its cut call may have run
        assert len(clerk_llm.requests) == 1
        assert MAY_HAVE_RUN in clerk_llm.requests[0].messages[-1].content
    else:  # the clerk's stored answer was taken: it was not asked again
        assert clerk_llm.requests == []

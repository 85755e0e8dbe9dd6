"""A handoff's options: one marked ``requires_approval`` (a mapping entry of ``handoffs:``)
waits for approve()/deny() under every policy, like a marked tool."""

from __future__ import annotations

import json
import threading

import pytest

from autobyteus_like import AgentTeam, ScriptedLLM, TeamConfig
from autobyteus_like.events import ApprovalRequested


def call(name: str, **arguments: object) -> str:
    return json.dumps({"name": name, "arguments": arguments})


def desk(triage: list[str], billing: list[str], *, handoffs: list[object],
         triage_options: dict[str, object] | None = None,
         billing_options: dict[str, object] | None = None) -> TeamConfig:
    return TeamConfig.from_data({"name": "desk", "coordinator": "triage", "members": [
        {"name": "triage", "llm": {"provider": "scripted", "responses": triage},
         "tool_format": "json", "handoffs": handoffs, **(triage_options or {})},
        {"name": "billing", "role": "handles money", "tool_format": "xml",
         "llm": {"provider": "scripted", "responses": billing}, **(billing_options or {})}]})


def _asked(team: AgentTeam, events) -> tuple[list[str], threading.Thread, ApprovalRequested]:  # type: ignore[no-untyped-def]
    answer: list[str] = []
    runner = threading.Thread(target=lambda: answer.append(team.run("refund me", timeout=10)))
    runner.start()
    asked = next(e for e in iter(lambda: events.get(timeout=5), None)
                 if isinstance(e, ApprovalRequested))
    return answer, runner, asked


@pytest.mark.parametrize("policy", ["all", "marked"])
def test_a_handoff_marked_requires_approval_waits_under_every_policy(policy):
    config = desk([call("transfer_to_billing", reason="money")], ["billing here"],
                  handoffs=[{"to": "billing", "requires_approval": True}],
                  triage_options={"approval_policy": policy})
    with AgentTeam(config) as team:
        events = team.events()
        answer, runner, asked = _asked(team, events)
        assert asked.invocation.name == "transfer_to_billing"
        billing = team.agents["billing"].config.llm
        assert isinstance(billing, ScriptedLLM) and billing.requests == []  # not yet
        assert team.mail.holder == "triage"
        team.approve("triage", asked.invocation.id)
        runner.join(10)
        assert answer == ["billing here"] and team.mail.holder == "billing"


def test_a_denied_marked_handoff_keeps_the_conversation_with_the_caller():
    config = desk([call("transfer_to_billing", reason="money"), "I keep it"], [],
                  handoffs=[{"to": "billing", "requires_approval": True}],
                  triage_options={"approval_policy": "marked"})
    with AgentTeam(config) as team:
        events = team.events()
        answer, runner, asked = _asked(team, events)
        team.deny("triage", asked.invocation.id, "not now")
        runner.join(10)
        assert answer == ["I keep it"] and team.mail.holder == "triage"


def test_an_unmarked_handoff_runs_unasked_under_marked_and_auto_approve_marked_skips_it():
    for handoffs, policy in ((["billing"], "marked"),
                             ([{"to": "billing", "requires_approval": True}],
                              "auto_approve_marked")):
        config = desk([call("transfer_to_billing", reason="money")], ["billing here"],
                      handoffs=handoffs, triage_options={"approval_policy": policy})
        with AgentTeam(config) as team:
            assert team.run("refund me", timeout=10) == "billing here"

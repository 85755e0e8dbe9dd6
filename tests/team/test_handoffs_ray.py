"""The same handoff on Ray as on the local runtime (a few fixed cases; the suite's one Ray
cluster): the receiver goes on with the whole conversation in its own format, every call
paired with its result in order, and the holder answers the next message."""

from __future__ import annotations

import pytest

from autobyteus_like import AgentConfig, AgentTeam, ScriptedLLM, TeamConfig
from autobyteus_like.events import ConversationHandedOver
from tests.runtime.scripted_teams import RAY_KINDS, call, calls, ray_runtime


def desk() -> TeamConfig:
    triage = AgentConfig(name="triage", llm=ScriptedLLM([calls(
        call("send_message_to", recipient_name="billing", content="heads up"),
        call("transfer_to_billing", reason="money"))]), tools=["send_message_to"],
        handoffs=["billing"], tool_format="json")
    billing = AgentConfig(name="billing", role="handles money", tool_format="xml",
                          llm=ScriptedLLM(["noted", "refund done", "and again"]))
    return TeamConfig(name="desk", coordinator="triage", members=[triage, billing])


@pytest.mark.parametrize("kind", RAY_KINDS)
def test_a_handoff_on_ray_gives_the_receiver_the_conversation(ray_cluster, kind):
    with AgentTeam(desk(), runtime=ray_runtime(kind)) as team:
        events = team.events()
        # send's future follows the hand-over to the receiver's answer, as run's would
        assert team.send("I want a refund").result(timeout=60) == "refund done"
        assert team.wait_quiescent(timeout=60)
        assert team.run("once more", timeout=60) == "and again"  # the holder answers
        billing = team.agents["billing"].fetch_llm()  # type: ignore[attr-defined]
    handed = []
    while (event := events.get(timeout=30)) is not None:
        handed += [event] if isinstance(event, ConversationHandedOver) else []
    assert [(e.sender, e.receiver) for e in handed] == [("triage", "billing")]
    # the mail and the hand-over both reached billing; the hand-over's turn saw it all
    handover = next(r for r in billing.requests if "handed this conversation" in
                    r.messages[-1].content)
    shown = handover.messages
    assert shown[0].content == "I want a refund"
    assert '<tool name="send_message_to"' in shown[1].content  # in billing's format
    assert '<tool name="transfer_to_billing"' in shown[1].content
    assert "delivered to billing" in shown[2].content
    assert "Transferred to billing." in shown[2].content
    assert billing.requests[-1].messages[-1].content == "once more"

"""Handoffs on the local runtime with scripted members: the receiver goes on with the
conversation, calls of the same response settle first, one handoff per response, the holder
answers the next message, and a session records the holder."""

from __future__ import annotations

import json
import threading

import pytest

from autobyteus_like import AgentConfig, AgentTeam, ScriptedLLM, TeamConfig, tool
from autobyteus_like.errors import ConfigError
from autobyteus_like.events import ApprovalRequested, ConversationHandedOver
from autobyteus_like.history._replay import history_problems
from autobyteus_like.store import Session


def call(name: str, **arguments: object) -> str:
    return json.dumps({"name": name, "arguments": arguments})


def calls(*written: str) -> str:
    return f"[{', '.join(written)}]"


ran: list[str] = []


@tool
def lookup(q: str) -> str:
    """Look something up.

    Args:
        q: What to look up.
    """
    ran.append(q)
    return f"found {q}"


@tool(requires_approval=True)
def refund(amount: int) -> str:
    """Refund money.

    Args:
        amount: How much.
    """
    ran.append(f"refund {amount}")
    return "refunded"


def team_of(triage: list[str], billing: list[str], **options: object) -> TeamConfig:
    members = [
        AgentConfig(name="triage", llm=ScriptedLLM(triage), tools=["lookup", "refund"],
                    handoffs=["billing"], tool_format="json",
                    **options.pop("triage_options", {})),  # type: ignore[arg-type]
        AgentConfig(name="billing", role="handles money", llm=ScriptedLLM(billing),
                    tool_format="xml", handoffs=["triage"],
                    **options.pop("billing_options", {})),  # type: ignore[arg-type]
    ]
    return TeamConfig(name="desk", coordinator="triage", members=members, **options)


def test_the_receiver_goes_on_with_the_whole_conversation_every_call_paired_in_order():
    ran.clear()
    config = team_of([calls(call("lookup", q="a"), call("transfer_to_billing", reason="money"),
                            call("lookup", q="b"))], ["refund done", "and again"])
    with AgentTeam(config, tools=[lookup, refund]) as team:
        events = team.events()
        assert team.run("I want a refund", timeout=10) == "refund done"
        history = team.agents["billing"].history  # type: ignore[attr-defined]
        assert team.run("once more", timeout=10) == "and again"  # the holder answers
    handed = [e for e in _drain(events) if isinstance(e, ConversationHandedOver)]
    assert sorted(ran) == ["a", "b"]  # every other call ran, once
    assert [(e.sender, e.receiver, e.reason) for e in handed] == [("triage", "billing",
                                                                    "money")]
    assert history_problems(history) == []  # every call with its result, in order
    _, user, response, results, note, answer = history
    assert user.content == "I want a refund"
    assert [c.name for c in response.tool_calls] == ["lookup", "transfer_to_billing", "lookup"]
    assert response.format == "xml" and '<tool name="lookup"' in response.content  # re-rendered
    assert [r.content for r in results.results] == ["found a", "Transferred to billing.",
                                                    "found b"]
    assert [r.invocation_id for r in results.results] == [c.id for c in response.tool_calls]
    assert note.content.startswith("Message from triage:\ntriage handed this conversation")
    assert answer.content == "refund done"
    billing = config.members[1].llm
    assert isinstance(billing, ScriptedLLM)
    assert billing.requests[1].messages[-1].content == "once more"
    assert len(config.members[0].llm.requests) == 1  # type: ignore[attr-defined]


def test_two_handoffs_in_one_response_the_first_wins_the_second_gets_a_clear_result():
    config = team_of([calls(call("transfer_to_billing", reason="first"),
                            call("transfer_to_billing", reason="second"))], ["billing here"])
    with AgentTeam(config, tools=[lookup, refund]) as team:
        assert team.run("hi", timeout=10) == "billing here"
        history = team.agents["billing"].history  # type: ignore[attr-defined]
    first, second = history[3].results
    assert first.status == "success"
    assert second.status == "failure" and second.started is False
    assert "only one handoff per response" in second.error.message
    assert "reason: first" in history[4].content.lower()


def test_the_handoff_waits_for_the_other_calls_approval_and_runs_after():
    ran.clear()
    config = team_of([calls(call("transfer_to_billing", reason="money"),
                            call("refund", amount=5))], ["billing here"],
                     triage_options={"approval_policy": "marked"})
    with AgentTeam(config, tools=[lookup, refund]) as team:
        events = team.events()
        answer: list[str] = []
        runner = threading.Thread(target=lambda: answer.append(team.run("hi", timeout=10)))
        runner.start()
        asked = next(e for e in iter(lambda: events.get(timeout=5), None)
                     if isinstance(e, ApprovalRequested))
        billing = config.members[1].llm
        assert billing.requests == [] and ran == []  # type: ignore[attr-defined]
        team.approve("triage", asked.invocation.id)
        runner.join(10)
        history = team.agents["billing"].history  # type: ignore[attr-defined]
    assert answer == ["billing here"] and ran == ["refund 5"]
    assert [r.tool_name for r in history[3].results] == ["transfer_to_billing", "refund"]
    assert history_problems(history) == []


def test_a_denied_handoff_keeps_the_conversation_with_the_caller():
    config = team_of([call("transfer_to_billing", reason="money"), "I keep it"], [],
                     triage_options={"auto_execute_tools": False})
    with AgentTeam(config, tools=[lookup, refund]) as team:
        events = team.events()
        answer: list[str] = []
        runner = threading.Thread(target=lambda: answer.append(team.run("hi", timeout=10)))
        runner.start()
        asked = next(e for e in iter(lambda: events.get(timeout=5), None)
                     if isinstance(e, ApprovalRequested))
        team.deny("triage", asked.invocation.id, "not now")
        runner.join(10)
        assert answer == ["I keep it"] and team.mail.holder == "triage"


def test_next_message_to_coordinator_sends_the_user_back():
    config = team_of([call("transfer_to_billing", reason="money"), "triage again"],
                     ["billing here"], next_message_to="coordinator")
    with AgentTeam(config, tools=[lookup, refund]) as team:
        assert team.run("hi", timeout=10) == "billing here"
        assert team.run("next", timeout=10) == "triage again"


@pytest.mark.parametrize(("setting", "expected"), [
    ("user", ["first", "second"]),
    ("last:1", ["second"]),
])
def test_handoff_history_filters_what_the_receiver_is_given(setting, expected):
    config = team_of(["answered", call("transfer_to_billing", reason="money")],
                     ["billing here"], billing_options={"handoff_history": setting})
    with AgentTeam(config, tools=[lookup, refund]) as team:
        team.run("first", timeout=10)
        assert team.run("second", timeout=10) == "billing here"
        history = team.agents["billing"].history  # type: ignore[attr-defined]
    users = [m.content for m in history if m.role == "user"]
    assert users[:-1] == expected  # then the hand-over's note
    assert history_problems(history) == []


def test_handoffs_name_other_members_or_the_config_says_where():
    scripted = {"provider": "scripted", "responses": ["x"]}
    with pytest.raises(ConfigError) as raised:
        TeamConfig.from_data({"name": "t", "coordinator": "a", "members": [
            {"name": "a", "llm": scripted, "handoffs": ["b", "nobody", "a"]},
            {"name": "b", "llm": scripted}]})
    text = str(raised.value)
    assert "members[0].handoffs[1]: 'nobody' is no member of the team" in text
    assert "members[0].handoffs[2]: 'a' cannot hand the conversation to itself" in text
    with pytest.raises(ConfigError, match=r"members\[1\]\.handoff_history: .*'last:0'"):
        TeamConfig.from_data({"name": "t", "coordinator": "a", "members": [
            {"name": "a", "llm": scripted}, {"name": "b", "llm": scripted,
                                             "handoff_history": "last:0"}]})


def test_a_session_records_the_holder_and_a_new_process_goes_on_with_it(tmp_path):
    store = str(tmp_path / "s.db")
    config = team_of([call("transfer_to_billing", reason="money")], ["billing here"])
    with Session("desk", store) as session, \
            AgentTeam(config, tools=[lookup, refund], session=session) as team:
        assert team.run("hi", timeout=10) == "billing here"
        assert session.holder() == "billing"
    # a restored scripted LLM skips the replies it wrote itself (not triage's, handed to it)
    again = team_of([], ["(skipped)", "billing again"])
    with Session("desk", store) as session, \
            AgentTeam(again, tools=[lookup, refund], session=session) as team:
        assert team.run("and now?", timeout=10) == "billing again"
    seen = again.members[1].llm.requests[0].messages  # type: ignore[attr-defined]
    assert seen[0].content == "hi" and seen[-1].content == "and now?"


def _drain(events):  # type: ignore[no-untyped-def]
    out = []
    while (event := events.get(timeout=5)) is not None:  # (None: the team stopped)
        out.append(event)
    return out


def test_a_stream_follows_the_conversation_to_the_receiver():
    config = team_of([call("transfer_to_billing", reason="money")], ["refund done"])
    with AgentTeam(config, tools=[lookup, refund]) as team, \
            team.stream("refund please") as stream:
        assert "".join(stream.text()) == "refund done"
        assert stream.result() == "refund done"


def test_a_rewound_run_gives_the_conversation_back_to_who_held_it():
    config = team_of([call("transfer_to_billing", reason="money"), "triage again"],
                     ["billing here"])
    with AgentTeam(config, tools=[lookup, refund]) as team:
        assert team.run("hi", timeout=10) == "billing here"
        team.new_run(rewind=True)  # a served team's cancelled ask: that run leaves no trace
        assert team.mail.holder == "triage"
        assert team.run("again", timeout=10) == "triage again"


def test_each_conversation_has_its_own_holder():
    config = team_of([call("transfer_to_billing", reason="money"), "triage here"],
                     ["billing here"])
    with AgentTeam(config, tools=[lookup, refund]) as team:
        assert team.run("hi", timeout=10, conversation="alice") == "billing here"
        assert team.conversation("alice").mail.holder == "billing"
        assert team.mail.holder == "triage"  # the default conversation is not handed over

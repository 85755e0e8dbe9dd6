"""Handoffs' smaller promises (issue 37's low items): a receiver restored from its session
skips only the replies it wrote itself, ``team.send`` resolves with the answer of the member
the conversation was handed to (as ``run`` does), and a ``handoffs:`` entry's
``requires_approval`` is a boolean or a ``ConfigError`` naming the member and the entry."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from autobyteus_like import AgentConfig, AgentTeam, ScriptedLLM, TeamConfig, tool
from autobyteus_like.errors import AgentTurnError, AutobyteusLikeError, ConfigError
from autobyteus_like.events import ApprovalRequested
from autobyteus_like.store import Session
from autobyteus_like.tools import HandoffEntry


def call(name: str, **arguments: object) -> str:
    return json.dumps({"name": name, "arguments": arguments})


@tool
def note(text: str) -> str:
    """Keep a note.

    Args:
        text: The note.
    """
    return f"noted {text}"


def desk(triage: list[str], billing: list[str], **options: object) -> TeamConfig:
    return TeamConfig(name="desk", coordinator="triage", members=[
        AgentConfig(name="triage", llm=ScriptedLLM(triage), tools=["note"],
                    handoffs=["billing"], tool_format="json"),
        AgentConfig(name="billing", llm=ScriptedLLM(billing), tool_format="json",
                    handoffs=["triage"]),
    ], **options)  # type: ignore[arg-type]


# -- (1) a restored receiver's script skips only its own replies ---------------------------

def test_a_restored_receiver_skips_only_its_own_replies_not_the_callers_it_was_handed(
        tmp_path):
    store = str(tmp_path / "s.db")
    first = desk([call("note", text="a"), call("note", text="b"),
                  call("transfer_to_billing", reason="money")], ["billing here"])
    with Session("desk", store) as session, \
            AgentTeam(first, tools=[note], session=session) as team:
        assert team.run("refund please", timeout=10) == "billing here"
    # billing's history now holds triage's three replies (handed over) and one of its own:
    # a new process's script goes on after that one only
    again = desk([], ["billing here", "billing again"])
    with Session("desk", store) as session, \
            AgentTeam(again, tools=[note], session=session) as team:
        assert team.run("and now?", timeout=10) == "billing again"
    billing = again.members[1].llm
    assert isinstance(billing, ScriptedLLM)
    seen = [m.content for m in billing.requests[0].messages if m.role == "user"]
    assert seen[0] == "refund please" and seen[-1] == "and now?"


def test_a_restored_caller_still_skips_every_reply_it_wrote(tmp_path):
    store = str(tmp_path / "s.db")
    first = desk([call("note", text="a"), "triage answers"], [],
                 next_message_to="coordinator")
    with Session("desk", store) as session, \
            AgentTeam(first, tools=[note], session=session) as team:
        assert team.run("hello", timeout=10) == "triage answers"
    again = desk(["(1)", "(2)", "triage again"], [], next_message_to="coordinator")
    with Session("desk", store) as session, \
            AgentTeam(again, tools=[note], session=session) as team:
        assert team.run("and now?", timeout=10) == "triage again"


# -- (2) send and run agree: the answer of whoever the conversation was handed to ----------

def test_send_resolves_with_the_receivers_answer_as_run_does():
    config = desk([call("transfer_to_billing", reason="money")], ["billing here"])
    with AgentTeam(config, tools=[note]) as team:
        reply = team.send("refund please")
        assert reply.result(timeout=10) == "billing here"  # not "Transferred to billing."
        assert team.wait_quiescent(timeout=10)
        assert team.last_answer(timeout=5) == "billing here"


def test_send_follows_a_conversation_handed_on_twice_to_its_last_holder():
    config = desk([call("transfer_to_billing", reason="money"), "triage is back"],
                  [call("transfer_to_triage", reason="not money")])
    with AgentTeam(config, tools=[note]) as team:
        assert team.send("refund please").result(timeout=10) == "triage is back"
        assert team.wait_quiescent(timeout=10)
        assert team.mail.holder == "triage"


def test_send_to_a_named_member_follows_its_handoff_too():
    config = desk(["triage here"], [call("transfer_to_triage", reason="not money")])
    with AgentTeam(config, tools=[note]) as team:
        assert team.send("hello", to="billing").result(timeout=10) == "triage here"
        assert team.wait_quiescent(timeout=10)


def test_a_handoff_refused_by_max_handoffs_fails_the_sent_message():
    config = desk([call("transfer_to_billing", reason="b")] * 3,
                  [call("transfer_to_triage", reason="t")] * 3, max_handoffs=2)
    with AgentTeam(config, tools=[note]) as team:
        reply = team.send("go")
        with pytest.raises(AgentTurnError, match=r"handed over 2 times .*max_handoffs"):
            reply.result(timeout=10)
        assert team.wait_quiescent(timeout=10)


@tool(requires_approval=True)
def refund(amount: int) -> str:
    """Refund money.

    Args:
        amount: How much.
    """
    return "refunded"


def test_a_team_stopped_while_the_receiver_works_fails_the_sent_message_never_hangs():
    config = TeamConfig(name="desk", coordinator="triage", members=[
        AgentConfig(name="triage", llm=ScriptedLLM([call("transfer_to_billing", reason="$")]),
                    handoffs=["billing"], tool_format="json"),
        AgentConfig(name="billing", llm=ScriptedLLM([call("refund", amount=5)]),
                    tools=["refund"], tool_format="json", approval_policy="marked")])
    team = AgentTeam(config, tools=[refund]).start()
    try:
        events = team.events()
        reply = team.send("refund please")
        while not isinstance(event := events.get(timeout=10), ApprovalRequested):
            assert event is not None
        assert event.agent == "billing" and not reply.done()  # the receiver has not answered
    finally:
        team.stop()
    assert isinstance(reply.exception(timeout=10), AutobyteusLikeError)


def test_send_without_a_handoff_is_the_members_answer_as_before():
    config = desk(["triage answers"], [])
    with AgentTeam(config, tools=[note]) as team:
        assert team.send("hello").result(timeout=10) == "triage answers"


# -- (3) requires_approval is a boolean ----------------------------------------------------

def _team_data(entry: object) -> dict[str, object]:
    scripted = {"provider": "scripted", "responses": ["x"]}
    return {"name": "t", "coordinator": "triage", "members": [
        {"name": "triage", "llm": scripted, "handoffs": ["tech", entry]},
        {"name": "billing", "llm": scripted}, {"name": "tech", "llm": scripted}]}


@pytest.mark.parametrize("value", ["yes", "true", 1, 0, None, [True]])
def test_requires_approval_that_is_not_a_boolean_is_a_config_error_naming_member_and_entry(
        value):
    with pytest.raises(ConfigError) as raised:
        TeamConfig.from_data(_team_data({"to": "billing", "requires_approval": value}),
                             source="desk.yaml")
    text = str(raised.value)
    assert (f"desk.yaml: members[0].handoffs[1]: member 'triage', handoff to 'billing': "
            f"requires_approval must be true or false, got {value!r}") in text, text
    assert "Input should be" not in text  # one line that says it, no pydantic noise


def test_a_yaml_file_saying_yes_in_quotes_is_refused_and_a_plain_true_is_taken(tmp_path):
    team = tmp_path / "desk.yaml"
    body = """name: desk
coordinator: triage
members:
  - name: triage
    llm: {provider: scripted, responses: [x]}
    handoffs: [{to: billing, requires_approval: %s}]
  - name: billing
    llm: {provider: scripted, responses: [x]}
"""
    team.write_text(body % '"yes"')
    with pytest.raises(ConfigError, match=r"members\[0\]\.handoffs\[0\]: member 'triage', "
                                          r"handoff to 'billing': requires_approval must be "
                                          r"true or false, got 'yes'"):
        TeamConfig.from_yaml(team)
    team.write_text(body % "true")
    [entry] = TeamConfig.from_yaml(team).members[0].handoffs
    assert entry == HandoffEntry(to="billing", requires_approval=True)


def test_other_mistakes_in_an_entry_name_the_member_and_the_entry():
    for entry, said in [({"to": "billing", "approval": True}, "unknown key 'approval'"),
                        ({"requires_approval": True}, "'to' is missing"),
                        ({"to": 7}, "'to' must be a member's name, got 7")]:
        with pytest.raises(ConfigError) as raised:
            TeamConfig.from_data(_team_data(entry), source="desk.yaml")
        assert "desk.yaml: members[0].handoffs[1]: member 'triage'" in str(raised.value)
        assert said in str(raised.value), str(raised.value)


def test_in_python_a_string_is_no_boolean_either():
    with pytest.raises(ValidationError, match="requires_approval must be true or false"):
        HandoffEntry(to="billing", requires_approval="yes")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match=r"AgentConfig\(name='a'\): handoffs\[0\]\.HandoffEntry"
                                          r"\.requires_approval: requires_approval must be true "
                                          r"or false, got 'yes'"):
        AgentConfig(name="a", llm=ScriptedLLM([]),
                    handoffs=[{"to": "b", "requires_approval": "yes"}])  # type: ignore[list-item]

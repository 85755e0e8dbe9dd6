"""The same team with members as tools on Ray (the suite's one local cluster): a member asks
another twice in parallel beside an ordinary call and a typed callee, and the results come
back in invocation order, the typed answer as JSON, and the callees' steps reach the team's
stream as on the local runtime; a member's running conversation called from another host (or
its own) answers its calls in turn, refuses a loop across hosts and times out as a result.
Fixed cases: the
orders are the property's business (test_member_tools_order.py, on the local runtime). The
models run in the hosts, so the lead's last reply says what it was shown."""

from __future__ import annotations

import json

import pytest
from pydantic import BaseModel

from autobyteus_like import AgentTeam, tool
from autobyteus_like.events import ToolStarted, TurnCompleted, UserMessageReceived
from autobyteus_like.store import Session, open_store
from autobyteus_like.team import MemberCallEvent
from tests.runtime.scripted_teams import call, calls, member, ray_runtime, team_config


def echo(request) -> str:
    return f"found: {request.messages[-1].content}"


def what_it_was_shown(request) -> str:
    """The results the request's last message shows, in order, as JSON."""
    lines = request.messages[-1].content.splitlines()[1:]
    return json.dumps([json.loads(line)["tool_result"]["content"] for line in lines])


@tool
def note(text: str) -> str:
    """Note something."""
    return f"noted {text}"


class Verdict(BaseModel):
    ok: bool


def test_parallel_member_calls_beside_an_ordinary_one_answer_in_order_on_ray(ray_cluster,
                                                                               tmp_path):
    # packed two to a host: the lead's callees' own hosts are elsewhere or the same one; a
    # fresh instance runs beside its caller either way
    lead = member("lead", [calls(call("ask_researcher", request="a?"), call("note", text="x"),
                                 call("ask_researcher", request="b?"),
                                 call("ask_judge", request="ok?")), what_it_was_shown],
                  tools=["ask:researcher", "ask:judge", "note"])
    researcher = member("researcher", [echo] * 4, tools=[])
    judge = member("judge", [call("final_result", ok=True)], tools=[], output_type=Verdict)
    config = team_config(lead, judge, researcher)
    store = str(tmp_path / "sessions.db")
    with AgentTeam(config, tools=[note], runtime=ray_runtime("ray-packed"),
                   session=Session("s", store)) as team:
        events = team.events()
        answer = team.run("go", timeout=60)
        events.close()
    seen = list(events)
    assert json.loads(answer) == ["found: a?", "noted x", "found: b?", {"ok": True}]
    # the callees' steps reach the driver's stream, each under the call it answers
    started = {e.invocation.id: e.invocation.name for e in seen
               if isinstance(e, ToolStarted) and e.agent == "lead"}
    nested = [e for e in seen if isinstance(e, MemberCallEvent)]
    asked = {(e.callee, e.call_id) for e in nested}
    assert sorted(asked) == sorted((name.removeprefix("ask_"), call_id)
                                   for call_id, name in started.items() if name != "note")
    for callee, call_id in asked:
        mine = [e for e in nested if e.call_id == call_id]
        assert all(e.agent == "lead" and e.member == f"{callee}@lead/{call_id}" for e in mine)
        kinds = [type(e.event) for e in mine]  # its turn, from the request to its end
        assert UserMessageReceived in kinds and TurnCompleted in kinds
    # each fresh callee kept its record in the team's store, from the caller's host
    opened = open_store(store)
    try:
        records = sorted(info.name.split("/")[0] for info in opened.sessions()
                         if info.name != "s")
    finally:
        opened.close()
    assert records == ["s@judge@lead", "s@researcher@lead", "s@researcher@lead"]


def what_it_saw(request) -> str:
    """The requests its conversation holds so far (a running one keeps each call's)."""
    return " | ".join(m.content.splitlines()[-1] for m in request.messages  # no "Message from"
                      if m.role == "user")


@pytest.mark.parametrize("kind", ["ray", "ray-packed"])
def test_a_running_conversation_answers_calls_in_turn_on_ray(ray_cluster, kind):
    # "ray": the keeper's conversation lives in another host than its caller's; packed: the
    # same host (the call stays in the process)
    lead = member("lead", [calls(call("ask_keeper", request="a?"),
                                 call("ask_keeper", request="b?")), what_it_was_shown],
                  tools=["ask:keeper"])
    keeper = member("keeper", [what_it_saw] * 2, tools=[], ask_conversation="running")
    with AgentTeam(team_config(lead, keeper), runtime=ray_runtime(kind)) as team:
        first, second = json.loads(team.run("go", timeout=60))
    # queued on the one conversation: whichever came second saw the first one's request
    assert sorted([first, second], key=len) in (["a?", "a? | b?"], ["b?", "b? | a?"])
    assert first.endswith("a?") and second.endswith("b?")


def test_a_loop_through_running_conversations_across_hosts_is_refused_on_ray(ray_cluster):
    # lead waits for keeper (another host), whose turn asks lead back: refused there
    lead = member("lead", [call("ask_keeper", request="k?"), what_it_was_shown],
                  tools=["ask:keeper"], ask_conversation="running")
    keeper = member("keeper", [call("ask_lead", request="l?"), what_it_was_shown],
                    tools=["ask:lead"], ask_conversation="running")
    with AgentTeam(team_config(lead, keeper), runtime=ray_runtime("ray")) as team:
        [answer] = json.loads(team.run("go", timeout=60))
    [refused] = json.loads(answer)
    assert "refused" in str(refused) and "waiting" in str(refused)


@tool(requires_approval=True)
def guarded(text: str) -> str:
    """Something a person must allow."""
    return f"did {text}"


def test_a_running_callee_still_busy_at_the_timeout_is_a_failed_result_on_ray(ray_cluster):
    # the keeper (another host) waits for a person nobody asks; its caller's call times out
    lead = member("lead", [call("ask_keeper", request="k?"), what_it_was_shown],
                  tools=["ask:keeper"], tool_timeout_s=1)
    keeper = member("keeper", [call("guarded", text="x"), "never"], tools=["guarded"],
                    ask_conversation="running")
    with AgentTeam(team_config(lead, keeper), tools=[guarded],
                   runtime=ray_runtime("ray")) as team:
        [timed_out] = json.loads(team.run("go", timeout=60))
    assert timed_out["code"] == "TIMEOUT"  # a result, not a hung caller; the stop ended the rest

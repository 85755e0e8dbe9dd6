"""One member surface on every runtime: the same behaviour of a team whose members are local
(pykka actors) or in Ray actors, run over both as pykka runs its suites over its actor kinds.
The Ray cases skip only where Ray cannot be had; they are few, and share one local cluster."""

from __future__ import annotations

import threading

import pytest

from autobyteus_like import (
    AgentStoppedError,
    AgentTeam,
    ToolContext,
    UsageLimitExceededError,
    UsageLimits,
    tool,
)
from autobyteus_like.events import ApprovalRequested, ToolResultReceived, ToolStarted
from autobyteus_like.runtime import LocalRuntime, RayRuntime
from autobyteus_like.team import MemberCallEvent
from tests.runtime.scripted_teams import (
    RAY_KINDS,
    call,
    member,
    on_local_and,
    ray_runtime,
    until_quiet,
)
from tests.runtime.scripted_teams import team_config as one_team


@pytest.fixture(params=["local", *RAY_KINDS])
def runtime(request):
    """Where the members live: this process, or a local Ray cluster (a host per member, or
    packed)."""
    if request.param != "local":
        request.getfixturevalue("ray_cluster")
        return ray_runtime(request.param)
    return LocalRuntime()


def team_config(lead, runtime):
    """A team of ``lead``; when packed, with an idle teammate in the same host."""
    if isinstance(runtime, RayRuntime) and runtime.members_per_worker != 1:
        return one_team(lead, member("bystander", []))
    return one_team(lead)


@tool(requires_approval=True)
def purge(target: str) -> str:
    """Delete everything under a target."""
    return f"purged {target}"


@tool
def note(text: str) -> str:
    """Take a note."""
    return text


_entered = threading.Event()


@tool
def block(context: ToolContext) -> str:
    """Run until cancelled."""
    _entered.set()
    while not context.cancelled.is_set():
        threading.Event().wait(0.01)  # the flag is made to be polled
    return "cancelled"


def _llm(agent):
    """The member's LLM as it is now (a Ray member's is fetched from its process)."""
    return agent.fetch_llm() if hasattr(agent, "fetch_llm") else agent.config.llm


@pytest.mark.parametrize(("decide", "shown", "answer"), [
    (lambda team, asked: team.approve(asked.agent, asked.invocation.id),
     ("success", "purged /tmp/x"), "purged, as you allowed"),
    (lambda team, asked: team.deny(asked.agent, asked.invocation.id, "not today"),
     ("DENIED", "denied: not today"), "I will not purge then."),
], ids=["approved", "denied"])
@on_local_and("ray-packed", "a decision crossing to a host: test_member_approvals.py's "
               "approval racing a stop")
def test_an_approved_call_runs_and_a_denied_one_is_shown_denied_and_the_turn_goes_on(
        runtime, decide, shown, answer):
    """The call's result (its status and content, or its error's code and message) goes
    back to the model, and the turn ends with the model's answer."""
    lead = member("lead", [call("purge", target="/tmp/x"), answer],
                  tools=["purge"], auto_execute_tools=False, approval_policy="marked")
    with AgentTeam(team_config(lead, runtime), tools=[purge], runtime=runtime) as team:
        events = team.events()

        def on_event(event):
            if isinstance(event, ApprovalRequested):
                decide(team, event)

        team.send("clean up")
        seen = until_quiet(events, on_event=on_event)
        sent_back = _llm(team.agents["lead"]).requests[-1].messages[-1].content
    [result] = [e.result for e in seen if isinstance(e, ToolResultReceived)]
    assert ((result.error.code, result.error.message) if result.error
            else (result.status, result.content)) == shown
    assert shown[-1] in sent_back
    assert seen[-1].answer == answer


@on_local_and("ray")  # the limit crossing from a host to the driver: its words kept
def test_a_member_limit_ends_the_run_with_the_limit_named(runtime):
    """The same words and the same figures on every runtime (a Ray member's limit crosses a
    process as data and is raised again in the driver)."""
    lead = member("lead", [call("note", text="a"), call("note", text="b"), "done"],
                  tools=["note"], limits=UsageLimits(max_llm_calls=2))
    with AgentTeam(team_config(lead, runtime), tools=[note], runtime=runtime) as team:
        with pytest.raises(UsageLimitExceededError) as raised:
            team.run("go", timeout=60)
        # the call that would cross it is not made
        assert len(_llm(team.agents["lead"]).requests) == 2
    assert str(raised.value) == ("usage limit max_llm_calls=2 of agent 'lead' reached: 2 made, "
                                 "the next was not; the run was ended")
    assert (raised.value.allowed, raised.value.figure, raised.value.refused) == (2, 3, True)


@on_local_and("ray-packed", "a token limit on Ray: test_ray_team_budget.py")
def test_a_token_limit_no_model_reports_says_its_figure_is_unknown(runtime):
    """A scripted model reports no tokens: the limit cannot be kept, and every runtime says
    so in the same words."""
    lead = member("lead", ["never"], tools=[], limits=UsageLimits(max_output_tokens=50))
    with AgentTeam(team_config(lead, runtime), runtime=runtime) as team, pytest.raises(
            UsageLimitExceededError) as raised:
        team.run("go", timeout=60)
    assert str(raised.value) == (
        "usage limit max_output_tokens=50 of agent 'lead' exceeded: the figure is unknown "
        "(1 response(s) reported no token usage); the run was ended")
    assert (raised.value.allowed, raised.value.figure, raised.value.refused) == (
        50, "unknown", False)


@on_local_and("ray-packed", "a Ray team's session resumed: the stop-cut turn here, "
               "test_ray_sessions.py")
def test_a_session_carries_the_conversation_into_the_next_start(runtime, tmp_path):
    from autobyteus_like.store import Session

    store = tmp_path / "team.sessions.db"

    def once(text: str, answer: str) -> list[tuple[str, str]]:
        lead = member("lead", ["one", "two"], tools=[])  # answers by request number
        with Session("s", store) as session, AgentTeam(
                team_config(lead, runtime), runtime=runtime, session=session) as team:
            assert team.run(text, timeout=60) == answer
            request = _llm(team.agents["lead"]).requests[-1]
        return [(m.role, m.content) for m in request.messages]

    assert once("first", "one") == [("user", "first")]
    assert once("second", "two") == [("user", "first"), ("assistant", "one"),
                                     ("user", "second")]


@on_local_and("ray", "usage across hosts: test_ray_team_budget.py")
def test_usage_counts_what_was_asked_and_run(runtime):
    lead = member("lead", [call("note", text="a"), "done"], tools=["note"])
    with AgentTeam(team_config(lead, runtime), tools=[note], runtime=runtime) as team:
        assert team.run("go", timeout=60) == "done"
        run = team.agents["lead"].usage.run
        assert (run.llm_calls, run.tool_calls) == (2, 1)
        assert len(_llm(team.agents["lead"]).requests) == 2


@on_local_and("ray", "a team limit across racing hosts: test_ray_team_budget.py")
def test_a_team_limit_holds_exactly_across_members(runtime):
    """Two members calling tools at once under the team's max_tool_calls: no more than that
    many calls run in all (on Ray the team's budget is kept in one place for every host), the
    next is refused, and the run ends with the team's limit named."""
    lead = member("lead", [call("send_message_to", recipient_name="worker", content="go"),
                           *[call("note", text=f"lead {i}") for i in range(6)], "done"],
                  tools=["send_message_to", "note"])
    worker = member("worker", [*[call("note", text=f"worker {i}") for i in range(6)], "done"],
                    tools=["note"])
    config = one_team(lead, worker, limits=UsageLimits(max_tool_calls=4))
    with AgentTeam(config, tools=[note], runtime=runtime) as team:
        events = team.events()
        with pytest.raises(UsageLimitExceededError, match="max_tool_calls=4 of team 't'"):
            team.run("go", timeout=60)
        seen = until_quiet(events)
    started = [e for e in seen if isinstance(e, ToolStarted)]
    refused = [e.result for e in seen if isinstance(e, ToolResultReceived)
               and e.result.error is not None and e.result.error.code == "LIMIT"]
    assert len(started) <= 4 and refused  # never one more, whichever member asked last


@on_local_and("ray-packed", "a stop on Ray: test_ray_team.py's stop mid-turn")
def test_stopping_fails_every_reply_owed_with_the_same_wording(runtime):
    """The turn running and the message waiting behind it: each reply fails alike, and the
    stopped member refuses more."""
    lead = member("lead", [call("block"), "never", "never either"], tools=["block"])
    team = AgentTeam(team_config(lead, runtime), tools=[block], runtime=runtime).start()
    try:
        events = team.events()
        running = team.send("work")
        while not isinstance(events.get(timeout=60), ToolStarted):
            pass
        waiting = team.send("and then this")
    finally:
        team.stop()
    wordings = set()
    for reply in (running, waiting):
        with pytest.raises(AgentStoppedError) as caught:
            reply.result(timeout=30)
        wordings.add(str(caught.value))
    assert wordings == {"agent 'lead' stopped before the turn finished"}
    with pytest.raises(AgentStoppedError, match="is not running; use"):
        team.agents["lead"].send("again")


@on_local_and("ray", "usage across hosts: test_ray_team_budget.py")
def test_the_team_s_usage_sums_its_members(runtime):
    """On Ray counted on the driver from the events the hosts stream: the same figures."""
    lead = member("lead", [call("send_message_to", recipient_name="helper", content="hi"),
                           "asked", "never used"])
    helper = member("helper", ["ok"], tools=[])
    with AgentTeam(one_team(lead, helper), runtime=runtime) as team:
        events = team.events()
        team.send("go")
        until_quiet(events)
        usage = team.usage
    assert (usage.run.llm_calls, usage.run.tool_calls) == (3, 1)  # lead 2, helper 1
    assert usage.members["lead"].llm_calls == 2 and usage.members["helper"].llm_calls == 1
    assert usage.run.cost_text == "unknown"  # a scripted model has no price, never $0


@pytest.mark.slow  # a real MCP server: seconds
@pytest.mark.parametrize("runtime", ["local"], indirect=True)  # on Ray: test_ray_tools_mcp.py
def test_a_member_calls_a_real_mcp_server_s_tool(runtime):
    pytest.importorskip("mcp", reason="the MCP SDK is not installed: pip install "
                                      "'autobyteus-like[mcp]'")
    from autobyteus_like.mcp import MCPToolset
    from tests.mcp.server_processes import sdk_stdio

    command, args = sdk_stdio()
    server = MCPToolset.stdio(command, args, name="sdk", timeout_s=20)
    adder = member("adder", [call("sdk.add", a=2, b=3), "the sum is 5"], tools=["sdk.add"])
    with AgentTeam(team_config(adder, runtime), tools=[server], runtime=runtime) as team:
        events = team.events()
        team.send("add 2 and 3")
        seen = until_quiet(events)
        sent_back = _llm(team.agents["adder"]).requests[-1].messages[-1].content
    [result] = [e.result for e in seen if isinstance(e, ToolResultReceived)]
    assert (result.status, result.content) == ("success", {"result": 5})
    assert "5" in sent_back and seen[-1].answer == "the sum is 5"


@pytest.mark.slow  # two starts of the team (of its Ray hosts): seconds
@on_local_and("ray")
def test_a_turn_cut_by_a_stop_is_resumed_from_the_session_with_its_call_interrupted(
        runtime, tmp_path):
    """The next start finds the turn unfinished; resuming sends the model the call's
    INTERRUPTED result (had the call run again, the model would get what it returned), and
    the turn ends with the model's answer. (Before ``resume`` nothing goes on, on either
    runtime: a Ray host waits for its driver as a local agent does; test_ray_sessions.py.)"""
    from autobyteus_like.store import Session

    store = tmp_path / "team.sessions.db"
    lead = member("lead", [call("block"), "never"], tools=["block"])
    with Session("s", store) as session:
        team = AgentTeam(team_config(lead, runtime), tools=[block], runtime=runtime,
                         session=session).start()
        try:
            events = team.events()
            reply = team.send("work")
            while not isinstance(events.get(timeout=60), ToolStarted):
                pass
        finally:
            team.stop()
        with pytest.raises(AgentStoppedError):
            reply.result(timeout=30)
        assert session.standing() == "unfinished"
    again = member("lead", ["(the first process's request)",  # answers by request number
                            "it was cut off; I will check before trying again"],
                   tools=["block"])
    with Session("s", store) as session, AgentTeam(
            team_config(again, runtime), tools=[block], runtime=runtime,
            session=session) as team:
        assert team.resume(timeout=60) == "it was cut off; I will check before trying again"
        [request] = _llm(team.agents["lead"]).requests
    assert "INTERRUPTED" in request.messages[-1].content


@on_local_and("ray")  # the instance runs in its caller's host: decided and counted there
def test_a_fresh_callee_s_call_is_decided_by_its_address_and_counted_under_it(runtime):
    """A member asked as a tool (a fresh instance per call) makes a call that needs approval:
    it waits, never run unasked, until ``team.approve`` gets the address and id its nested
    event shows (``clerk@lead/CALL``); the instance's usage is reported under the callee."""
    lead = member("lead", [call("ask_clerk", request="clean"), "done, says the clerk"],
                  tools=["ask:clerk"])
    clerk = member("clerk", [call("purge", target="/tmp/x"), "purged"], tools=["purge"],
                   auto_execute_tools=False, approval_policy="marked")
    asked = []

    with AgentTeam(one_team(lead, clerk), tools=[purge], runtime=runtime) as team:
        def on_event(event):
            if isinstance(event, MemberCallEvent) and isinstance(event.event,
                                                                 ApprovalRequested):
                asked.append(event)
                team.approve(event.member, event.event.invocation.id)

        events = team.events()
        team.send("go")
        seen = until_quiet(events, on_event=on_event)
        usage = team.usage
    [request] = asked
    assert request.member == f"clerk@lead/{request.call_id}"
    ran = [e.event.result for e in seen if isinstance(e, MemberCallEvent)
           and isinstance(e.event, ToolResultReceived)]
    assert [(r.status, r.content) for r in ran] == [("success", "purged /tmp/x")]
    assert seen[-1].answer == "done, says the clerk"
    spent = usage.members["clerk"]
    assert (spent.llm_calls, spent.tool_calls) == (2, 1)  # the instance's, under the callee

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
from tests.runtime.helpers import RAY_KINDS, call, member, ray_runtime, until_quiet
from tests.runtime.helpers import team_config as one_team


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


def test_a_denied_call_is_shown_as_denied_and_the_turn_goes_on(runtime):
    lead = member("lead", [call("purge", target="/"), "I will not purge then."],
                  tools=["purge"], auto_execute_tools=False, approval_policy="marked")
    with AgentTeam(team_config(lead, runtime), tools=[purge], runtime=runtime) as team:
        events = team.events()

        def deny(event):
            if isinstance(event, ApprovalRequested):
                team.deny(event.agent, event.invocation.id, "not today")

        team.send("clean up")
        seen = until_quiet(events, on_event=deny)
    results = [e.result for e in seen if isinstance(e, ToolResultReceived)]
    assert [(r.error.code, r.error.message) for r in results] == [("DENIED", "denied: not today")]
    assert seen[-1].answer == "I will not purge then."


def test_a_member_limit_ends_the_run_with_the_limit_named(runtime):
    lead = member("lead", [call("note", text="a"), call("note", text="b"), "done"],
                  tools=["note"], limits=UsageLimits(max_llm_calls=2))
    with AgentTeam(team_config(lead, runtime), tools=[note], runtime=runtime) as team:
        with pytest.raises(UsageLimitExceededError, match="max_llm_calls"):
            team.run("go", timeout=60)
        agent = team.agents["lead"]
        llm = agent.fetch_llm() if hasattr(agent, "fetch_llm") else agent.config.llm
        assert len(llm.requests) == 2  # the call that would cross it is not made


def test_stopping_fails_the_reply_owed_with_one_wording(runtime):
    _entered.clear()
    lead = member("lead", [call("block"), "never"], tools=["block"])
    team = AgentTeam(team_config(lead, runtime), tools=[block], runtime=runtime).start()
    try:
        events = team.events()
        reply = team.send("work")
        while not isinstance(events.get(timeout=60), ToolStarted):
            pass
    finally:
        team.stop()
    with pytest.raises(AgentStoppedError) as caught:
        reply.result(timeout=30)
    assert str(caught.value) == "agent 'lead' stopped before the turn finished"
    with pytest.raises(AgentStoppedError, match="is not running; use"):
        team.agents["lead"].send("again")


def _llm(agent):
    """The member's LLM as it is now (a Ray member's is fetched from its process)."""
    return agent.fetch_llm() if hasattr(agent, "fetch_llm") else agent.config.llm


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


def test_usage_counts_what_was_asked_and_run(runtime):
    lead = member("lead", [call("note", text="a"), "done"], tools=["note"])
    with AgentTeam(team_config(lead, runtime), tools=[note], runtime=runtime) as team:
        assert team.run("go", timeout=60) == "done"
        run = team.agents["lead"].usage.run
        assert (run.llm_calls, run.tool_calls) == (2, 1)
        assert len(_llm(team.agents["lead"]).requests) == 2

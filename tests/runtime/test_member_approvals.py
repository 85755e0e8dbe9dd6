"""Deciding a member's waiting call from outside, on every runtime (local and Ray): an id no
call waits with is an ``UnknownApprovalError`` naming the waiting calls (never a decision that
silently goes nowhere), two threads deciding one call at once get one winner and one clear
error, and a decision after a stop was acknowledged (``stop_run``, ``new_run``, ``stop``) is a
``AgentStoppedError`` saying the run was stopped, and none of that run's calls starts."""

from __future__ import annotations

import threading

import pytest

from autobyteus_like import AgentStoppedError, AgentTeam, tool
from autobyteus_like.errors import AutobyteusLikeError, UnknownApprovalError
from autobyteus_like.events import ApprovalRequested, ToolResultReceived, ToolStarted
from tests.runtime.scripted_teams import call, member, on_local_and, until_quiet
from tests.runtime.test_member_surface import runtime, team_config  # noqa: F401 (fixture)
from tests.stress_rounds import in_the_deep_run

ran: list[str] = []


@tool(requires_approval=True)
def purge(target: str) -> str:
    """Delete everything under a target."""
    ran.append(target)
    return f"purged {target}"


def _lead(runtime_: object) -> AgentTeam:
    lead = member("lead", [call("purge", target="/x"), "as you decided"],
                  tools=["purge"], auto_execute_tools=False, approval_policy="marked")
    return AgentTeam(team_config(lead, runtime_), tools=[purge], runtime=runtime_)


def _asked(events: object) -> ApprovalRequested:
    while True:
        event = events.get(timeout=60)  # type: ignore[attr-defined]
        assert event is not None, "the team stopped before the call asked"
        if isinstance(event, ApprovalRequested):
            return event


@on_local_and("ray", "a decision on Ray: the approval racing a stop below")
def test_an_unknown_call_id_is_refused_naming_the_waiting_call(runtime):  # noqa: F811
    with _lead(runtime) as team:
        events = team.events()
        team.send("clean up")
        waiting = _asked(events).invocation.id
        for decide in (team.approve, team.deny):
            with pytest.raises(UnknownApprovalError) as refused:
                decide("lead", "bogus")
            assert str(refused.value) == (f"agent 'lead': no call 'bogus' waits for "
                                          f"approval; waiting: {waiting}")
        team.approve("lead", waiting)  # the real call still waits for its own decision
        seen = until_quiet(events)
    [result] = [e.result for e in seen if isinstance(e, ToolResultReceived)]
    assert result.status == "success"


@pytest.mark.parametrize(("runtime", "second"), [  # on Ray: the race of one pair
    ("local", "approve"), ("local", "deny"),
    pytest.param("ray-packed", "deny", marks=in_the_deep_run(
        "its local cases; on Ray, the approval racing a stop below"))], indirect=["runtime"])
def test_two_threads_deciding_one_call_one_wins_and_the_other_is_told(runtime, second):  # noqa: F811
    with _lead(runtime) as team:
        events = team.events()
        team.send("clean up")
        waiting = _asked(events).invocation.id
        start = threading.Barrier(2)
        outcomes: dict[str, object] = {}

        def decide(how: str) -> None:
            start.wait()
            try:
                if how == "approve":
                    team.approve("lead", waiting)
                else:
                    team.deny("lead", waiting, "no")
                outcomes[how + "-" + threading.current_thread().name] = "decided"
            except AutobyteusLikeError as exc:
                outcomes[how + "-" + threading.current_thread().name] = exc

        threads = [threading.Thread(target=decide, args=(how,), name=f"decider{i}")
                   for i, how in enumerate(["approve", second])]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        seen = until_quiet(events)
    decided = [o for o in outcomes.values() if o == "decided"]
    refused = [o for o in outcomes.values() if isinstance(o, UnknownApprovalError)]
    assert len(decided) == 1 and len(refused) == 1, outcomes
    assert "waiting: none" in str(refused[0])
    results = [e.result for e in seen if isinstance(e, ToolResultReceived)]
    assert len(results) == 1  # one decision reached the call


@on_local_and("ray", "a decision on Ray: the approval racing a stop below")
def test_a_decision_after_the_team_stopped_is_refused(runtime):  # noqa: F811
    team = _lead(runtime).start()
    try:
        events = team.events()
        team.send("clean up")
        waiting = _asked(events).invocation.id
    finally:
        team.stop()
    for decide in (team.approve, team.deny):
        with pytest.raises(AgentStoppedError, match="the run was stopped"):
            decide("lead", waiting)


def _drained(events: object) -> list[object]:
    """The events already delivered (the team's new run has reported all of the run before)."""
    seen = []
    while True:
        try:
            event = events.get(timeout=0)  # type: ignore[attr-defined]
        except TimeoutError:
            return seen
        if event is None:
            return seen
        seen.append(event)


@on_local_and("ray-packed", "a decision on Ray: the approval racing a stop below")
def test_a_decision_after_an_acknowledged_stop_is_refused_and_nothing_starts(runtime):  # noqa: F811
    with _lead(runtime) as team:
        events = team.events()
        team.send("clean up")
        waiting = _asked(events).invocation.id
        team.stop_run()  # acknowledged: a served team's Stop answers now
        for decide in (team.approve, team.deny):
            with pytest.raises(AgentStoppedError) as refused:
                decide("lead", waiting)
            assert str(refused.value) == (
                f"agent 'lead': the run was stopped, so call {waiting!r} can no longer be "
                "approved or denied, and none of its calls starts")
        team.new_run()  # cuts the run; everything it reported has arrived
        seen = _drained(events)
        assert not [e for e in seen if isinstance(e, ToolStarted)]
        assert not [e for e in seen if isinstance(e, ToolResultReceived)
                    and e.result.status == "success"]


@on_local_and("ray")
def test_approve_racing_an_acknowledged_stop_never_runs_a_refused_call(runtime):  # noqa: F811
    """Approve and stop released at once by a barrier: whichever wins, a call whose approval
    was refused never starts, and one that started was approved before the stop."""
    with _lead(runtime) as team:
        events = team.events()
        team.send("clean up")
        waiting = _asked(events).invocation.id
        start = threading.Barrier(2)
        outcome: list[object] = []

        def approve() -> None:
            start.wait()
            try:
                team.approve("lead", waiting)
                outcome.append("approved")
            except AutobyteusLikeError as exc:
                outcome.append(exc)

        decider = threading.Thread(target=approve)
        decider.start()
        start.wait()
        team.stop_run()
        decider.join(60)
        team.new_run()
        started = [e for e in _drained(events) if isinstance(e, ToolStarted)]
    assert len(outcome) == 1
    if outcome[0] != "approved":
        assert isinstance(outcome[0], AgentStoppedError), outcome
        assert not started  # refused: it never started
    with pytest.raises(AgentStoppedError):
        team.approve("lead", waiting)  # and after the stop, never

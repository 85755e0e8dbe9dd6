"""TeamHost, the one way a face hosts a team: each ask is its own run with its own budget, and
a cancelled ask stops its work without rebuilding the team."""

from __future__ import annotations

import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import anyio
import pytest

from autobyteus_like import AgentTurnError, ToolContext, UsageLimits, tool
from autobyteus_like.errors import RunRefusedError
from autobyteus_like.events import AgentEvent, ToolStarted
from autobyteus_like.llm._messages import LLMRequest
from autobyteus_like.serving._team_host import TeamHost
from autobyteus_like.store import Session
from autobyteus_like.team import TeamConfig
from tests.runtime.scripted_teams import call, member, team_config
from tests.serving.left_sessions import assert_cut_then_fresh, killed_mid_tool, waiting_team
from tests.serving.team_tools import TOOLS as SERVED_TOOLS


async def _ignore(event: AgentEvent) -> None:
    return None


def test_each_ask_is_a_run_of_its_own_with_its_own_budget():
    lead = member("lead", [f"answer {n}" for n in range(1, 7)], tools=[])
    host = TeamHost(team_config(lead, limits=UsageLimits(max_llm_calls=3)))
    host.start()
    try:
        async def ask_six_times() -> list[str]:
            return [await host.ask(f"question {n}", None, _ignore) for n in range(1, 7)]

        assert anyio.run(ask_six_times) == [f"answer {n}" for n in range(1, 7)]
        assert host.team.usage.run.llm_calls == 1  # the last ask's run only
        # the conversation goes on across runs: the sixth request saw the five asks before it
        llm = host.team.agents["lead"].config.llm
        assert len(llm.requests[5].messages) == 11
    finally:
        host.stop()


def test_a_budget_is_still_kept_within_one_ask():
    lead = member("lead", [call("note", text="a"), call("note", text="b"), "done"],
                  tools=["note"])

    @tool
    def note(text: str) -> str:
        """Take a note."""
        return text

    host = TeamHost(team_config(lead, limits=UsageLimits(max_llm_calls=2)), tools=[note])
    host.start()
    try:
        with pytest.raises(AgentTurnError, match="max_llm_calls"):
            anyio.run(host.ask, "go", None, _ignore)
    finally:
        host.stop()


def test_a_cancelled_ask_stops_its_work_without_rebuilding_the_team():
    entered, cancelled = threading.Event(), threading.Event()

    @tool
    def wait(context: ToolContext) -> str:
        """Wait until cancelled."""
        entered.set()
        deadline = time.monotonic() + 30
        while not context.cancelled.is_set() and time.monotonic() < deadline:
            time.sleep(0.01)  # the flag is made to be polled
        if context.cancelled.is_set():
            cancelled.set()
        return "waited"

    def answer(request: LLMRequest) -> str:  # a request the stopping run may still begin
        return "second answer" if request.messages[-1].content == "something else" else "cut"

    lead = member("lead", [call("wait"), *[answer] * 4], tools=["wait"])
    host = TeamHost(team_config(lead, limits=UsageLimits(max_llm_calls=3)), tools=[wait])
    host.start()
    try:
        team = host.team

        assert _cancel_one_then_ask(host, entered, None, "something else") == "second answer"
        assert cancelled.wait(10)  # the tool was told at once
        assert host.team is team  # the same team: nothing rebuilt
        # the cancelled ask left no half turn behind: the next request is the new ask alone
        llm = team.agents["lead"].config.llm
        assert [m.content for m in llm.requests[-1].messages] == ["something else"]
    finally:
        host.stop()


def test_progress_reaches_the_caller_of_each_ask():
    lead = member("lead", [call("note", text="x"), "noted", "again"], tools=["note"])

    @tool
    def note(text: str) -> str:
        """Take a note."""
        return text

    seen: list[AgentEvent] = []

    async def report(event: AgentEvent) -> None:
        seen.append(event)

    host = TeamHost(team_config(lead), tools=[note])
    host.start()
    try:
        assert anyio.run(host.ask, "go", None, report) == "noted"
        assert [e.invocation.name for e in seen if isinstance(e, ToolStarted)] == ["note"]
        assert anyio.run(host.ask, "more", None, report) == "again"
    finally:
        host.stop()


def _blocking_tool(entered: threading.Event, ended: threading.Event):
    @tool
    def wait(context: ToolContext) -> str:
        """Wait until cancelled."""
        entered.set()
        try:
            deadline = time.monotonic() + 30
            while not context.cancelled.is_set() and time.monotonic() < deadline:
                time.sleep(0.01)  # the flag is made to be polled
            return "waited"
        finally:
            ended.set()

    return wait


@tool
def note(text: str) -> str:
    """Take a note."""
    return text


def _cancel_one_then_ask(host: TeamHost, entered: threading.Event,
                         ended: threading.Event | None, then: str,
                         on_event: Callable[[AgentEvent], Awaitable[None]] = _ignore) -> str:
    """Ask, cancel that ask once its tool has begun (``entered``), then ask ``then``: its
    answer. With ``ended``, the cut tool must have ended by the time the cancel returns."""
    async def ask_then_cancel() -> str:
        async with anyio.create_task_group() as group:
            async def first() -> None:
                await host.ask("wait for it", None, _ignore)

            group.start_soon(first)
            await anyio.to_thread.run_sync(entered.wait, 10)
            group.cancel_scope.cancel()
        if ended is not None:
            assert ended.is_set()  # the cut tool has ended: nothing of the ask is left running
        return await host.ask(then, None, on_event)

    return anyio.run(ask_then_cancel)


def test_a_team_with_a_session_gives_each_ask_its_own_run_in_the_same_team(tmp_path):
    lead = member("lead", [call("note", text="n"), *[f"answer {n}" for n in range(1, 7)]],
                  tools=["note"])
    with Session("served", tmp_path / "s.db") as session:
        host = TeamHost(team_config(lead, limits=UsageLimits(max_llm_calls=2)), tools=[note],
                        session=session)
        host.start()
        try:
            team = host.team

            async def ask_six_times() -> list[str]:
                return [await host.ask(f"question {n}", None, _ignore) for n in range(1, 7)]

            assert anyio.run(ask_six_times) == [f"answer {n}" for n in range(1, 7)]
            assert host.team is team and session.held  # never rebuilt, never let go
            assert team.usage.run.llm_calls == 1
            assert team.usage.session.llm_calls == 7  # every ask's run, counted once
        finally:
            host.stop()
        turns = session.store.turns("served", "lead")
        assert [(t.text, t.state) for t in turns] == [
            (f"question {n}", "done") for n in range(1, 7)]


def test_a_cancelled_ask_of_a_team_with_a_session_ends_its_calls_in_order_and_keeps_the_team(
        tmp_path):
    entered, ended = threading.Event(), threading.Event()
    both = "[" + call("note", text="first") + ", " + call("wait") + "]"

    def answer(request: LLMRequest) -> str:
        return "second answer" if request.messages[-1].content == "something else" else "cut"

    lead = member("lead", [both, *[answer] * 4], tools=["note", "wait"])
    with Session("served", tmp_path / "s.db") as session:
        host = TeamHost(team_config(lead, limits=UsageLimits(max_llm_calls=2)),
                        tools=[note, _blocking_tool(entered, ended)], session=session)
        host.start()
        try:
            team = host.team
            assert _cancel_one_then_ask(host, entered, ended, "something else") == "second answer"
            assert host.team is team and session.held
        finally:
            host.stop()
        # the cancelled turn ended as failed, its calls' results stored in their order: the
        # one that finished as it was, the one cut INTERRUPTED; no call left running
        store = session.store
        first, second = store.turns("served", "lead")
        assert (first.state, first.error) == ("failed", host.cancelled)
        assert (second.text, second.state, second.answer) == (
            "something else", "done", "second answer")
        stored = store.calls("served", "lead", first.turn_id)
        assert [(c.name, c.state.value) for c in stored] == [
            ("note", "succeeded"), ("wait", "interrupted")]
        history = store.history("served", "lead")
        roles = [m.role for m in history]
        assert roles[:3] == ["user", "assistant", "user"]  # the call, then its results
        results = history[2].tool_results
        assert [r["invocation_id"] for r in results] == [c.invocation_id for c in stored]


@pytest.mark.parametrize("limits", [None, UsageLimits(max_llm_calls=5)])
def test_a_cancelled_ask_waits_for_its_tools_and_the_next_ask_is_watched(limits):
    entered, ended = threading.Event(), threading.Event()
    lead = member("lead", [call("wait"), call("note", text="x"), "noted"],
                  tools=["note", "wait"])
    seen: list[AgentEvent] = []

    async def report(event: AgentEvent) -> None:
        seen.append(event)

    host = TeamHost(team_config(lead, limits=limits),
                    tools=[note, _blocking_tool(entered, ended)])
    host.start()
    try:
        team = host.team

        assert _cancel_one_then_ask(host, entered, ended, "note it", report) == "noted"
        assert host.team is team
        # the members' events still reach whoever watches the next ask
        assert [e.invocation.name for e in seen if isinstance(e, ToolStarted)] == ["note"]
    finally:
        host.stop()


def _left_unfinished(tmp_path: Path, then: list[str]) -> tuple[TeamConfig, Session]:
    """A team and its session, left unfinished by a real run killed mid-tool."""
    team = waiting_team(tmp_path, then)
    killed_mid_tool(team, "s1")
    return (TeamConfig.from_yaml(team, tools=SERVED_TOOLS),
            Session("s1", tmp_path / "lefteam.sessions.db"))


@pytest.mark.slow
def test_a_session_left_unfinished_is_resumed_before_any_message(tmp_path):
    config, session = _left_unfinished(tmp_path, ["Resumed.", "Next."])
    with session:
        host = TeamHost(config, tools=SERVED_TOOLS, session=session)
        host.start()
        try:
            assert host.unfinished == "unfinished"
            with pytest.raises(RunRefusedError, match="has an unfinished turn its last process"):
                anyio.run(host.ask, "hi", None, _ignore)
            assert anyio.run(host.ask, None, None, _ignore) == "Resumed."  # as team.resume()
            assert host.unfinished is None
            assert anyio.run(host.ask, "hi", None, _ignore) == "Next."
            with pytest.raises(RunRefusedError, match="nothing unfinished to abandon"):
                anyio.run(host.abandon, "too late")
        finally:
            host.stop()
        assert [(t.text, t.state, t.answer) for t in session.store.turns("s1", "lead")] == [
            ("wait for it", "done", "Resumed."), ("hi", "done", "Next.")]


@pytest.mark.slow
def test_a_session_left_unfinished_is_abandoned_with_a_reason(tmp_path):
    config, session = _left_unfinished(tmp_path, ["Fresh."])
    with session:
        host = TeamHost(config, tools=SERVED_TOOLS, session=session)
        host.start()
        try:
            with pytest.raises(RunRefusedError, match="a reason"):
                anyio.run(host.abandon, "  ")
            assert host.unfinished == "unfinished"
            anyio.run(host.abandon, "gave up")  # as team.abandon_unfinished("gave up")
            with pytest.raises(AgentTurnError, match="nothing unfinished to go on with"):
                anyio.run(host.ask, None, None, _ignore)
            assert anyio.run(host.ask, "hi", None, _ignore) == "Fresh."
        finally:
            host.stop()
        assert_cut_then_fresh(session.store, "s1", "gave up", "hi", "Fresh.")

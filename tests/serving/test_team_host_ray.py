"""A Ray team behind TeamHost: each ask is a new run of the same team, in place (its hosts'
processes stay, its limits count from zero, its conversation goes on), and a cancelled ask
cuts its tool and puts the conversation back, as for a local team."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from autobyteus_like import UsageLimits
from autobyteus_like.events import AgentEvent, ToolStarted
from autobyteus_like.runtime import RayRuntime
from autobyteus_like.serving._team_host import TeamHost
from autobyteus_like.store import Session
from tests.runtime.scripted_teams import call, member, team_config
from tests.serving.team_tools import echo, wait
from tests.stress_rounds import in_the_deep_run


async def _ignore(event: AgentEvent) -> None:
    return None


def _pids(host: TeamHost) -> set[int]:
    import ray

    return {ray.get(agent.handle.pid.remote(), timeout=60)  # type: ignore[union-attr]
            for agent in host.team.agents.values()}


async def _ask_cut_once_its_tool_starts(host: TeamHost, text: str) -> None:
    """Ask ``text`` and cancel the ask once its tool has started."""
    started = anyio.Event()

    async def note_start(event: AgentEvent) -> None:
        if isinstance(event, ToolStarted):
            started.set()

    async with anyio.create_task_group() as group:
        group.start_soon(host.ask, text, None, note_start)
        with anyio.fail_after(60):
            await started.wait()
        group.cancel_scope.cancel()


def _served(tmp_path: Path, responses: list[str], session: Session | None = None) -> TeamHost:
    lead = member("lead", responses, tools=["echo", "wait"])
    config = team_config(lead, member("helper", ["hi"]),
                         limits=UsageLimits(max_llm_calls=2),
                         runtime=RayRuntime(backend="ray"))
    return TeamHost(config, tools=[echo, wait], session=session)


@in_the_deep_run("the same Ray team's processes across asks: the with-a-session [True] "
                 "case; each ask's own budget: tests/serving/test_team_host.py locally")
def test_each_ask_is_a_new_run_of_the_same_ray_team(ray_cluster, tmp_path):
    host = _served(tmp_path, [call("echo", text="a"), "answer 1",
                              call("echo", text="b"), "answer 2", "answer 3"])
    host.start()
    try:
        team, pids = host.team, _pids(host)

        async def ask_three_times() -> list[str]:
            return [await host.ask(f"question {n}", None, _ignore) for n in (1, 2, 3)]

        # two LLM calls per ask against a team limit of two: each ask a run of its own
        assert anyio.run(ask_three_times) == ["answer 1", "answer 2", "answer 3"]
        assert host.team is team and _pids(host) == pids  # not rebuilt: the same processes
        llm = team.agents["lead"].fetch_llm()  # type: ignore[attr-defined]
        assert len(llm.requests[-1].messages) == 9  # the conversation went on across asks
    finally:
        host.stop()


@in_the_deep_run("a cancelled ask on Ray: the with-a-session [True] case below")
def test_a_cancelled_ask_cuts_its_tool_and_puts_the_conversation_back(ray_cluster, tmp_path):
    marker = tmp_path / "marker"
    host = _served(tmp_path, ["first", call("wait", seconds=60, marker=str(marker)),
                              "after the cut"])
    host.start()
    try:
        team, pids = host.team, _pids(host)

        async def ask_cancel_ask() -> str:
            assert await host.ask("one", None, _ignore) == "first"
            await _ask_cut_once_its_tool_starts(host, "wait")
            return await host.ask("two", None, _ignore)

        assert anyio.run(ask_cancel_ask) == "after the cut"
        assert marker.read_text() == "cancelled"  # cut in the host's process, and ended
        assert host.team is team and _pids(host) == pids
        llm = team.agents["lead"].fetch_llm()  # type: ignore[attr-defined]
        shown = [m.content for m in llm.requests[-1].messages if m.role == "user"]
        assert shown == ["one", "two"]  # the cancelled ask is gone from the conversation
    finally:
        host.stop()


@pytest.mark.parametrize("cancel", [pytest.param(False, marks=in_the_deep_run(
    "the [True] case")), True])
def test_with_a_session_each_ask_is_stored_in_the_same_ray_team(ray_cluster, tmp_path,
                                                                  cancel):
    marker = tmp_path / "marker"
    first = call("wait", seconds=60, marker=str(marker)) if cancel else "answer 1"
    with Session("served", tmp_path / "s.db") as session:
        host = _served(tmp_path, [first, "answer 2"], session=session)
        host.start()
        try:
            team, pids = host.team, _pids(host)

            async def two_asks() -> str:
                if cancel:
                    await _ask_cut_once_its_tool_starts(host, "one")
                else:
                    assert await host.ask("one", None, _ignore) == "answer 1"
                return await host.ask("two", None, _ignore)

            assert anyio.run(two_asks) == "answer 2"
            assert host.team is team and _pids(host) == pids and session.held
        finally:
            host.stop()
        turns = [(t.text, t.state, t.error) for t in session.store.turns("served", "lead")]
        assert turns == [("one", "failed", host.cancelled) if cancel else ("one", "done", None),
                         ("two", "done", None)]

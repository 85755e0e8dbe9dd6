"""Decisions taken from the web, in process (a real local team behind ``WebTeam``): refused
once the stop is acknowledged, sent to the team off the event loop, counted as taken only when
the team took them, and an unknown member named as such."""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Awaitable, Callable
from pathlib import Path

import anyio
import anyio.to_thread
import pytest

from autobyteus_like.errors import DecisionRefusedError
from autobyteus_like.hooks import AgentHooks
from autobyteus_like.runtime import RayRuntime
from autobyteus_like.serving._team_host import TeamHost
from autobyteus_like.web import WebTeam
from tests.runtime.scripted_teams import call, member, team_config
from tests.serving.team_tools import purge


class HeldApproval(AgentHooks):
    """Holds the member's actor when its call is approved until released, as a slow or far
    host does: the decision is on its way to the team meanwhile."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.release = threading.Event()

    def call_approved(self, turn, call) -> None:  # type: ignore[no-untyped-def]
        self.entered.set()
        self.release.wait(8)  # (a face that blocked its loop never releases it)


def served(tmp_path: Path, hooks: tuple[AgentHooks, ...] = ()) -> tuple[TeamHost, Path]:
    marker = tmp_path / "marker"
    lead = member("lead", [call("purge", marker=str(marker)), "Purged.", "again"],
                  tools=["purge"], auto_execute_tools=False, approval_policy="marked",
                  hooks=hooks)
    return TeamHost(team_config(lead), tools=[purge]), marker


def drive(host: TeamHost, body: Callable[[WebTeam], Awaitable[None]]) -> None:
    """``body`` on a WebTeam of the started ``host``, on a real event loop."""
    async def main() -> None:
        web = WebTeam(host)
        async with anyio.create_task_group() as group:
            web.attach(group)
            try:
                await body(web)
            finally:
                await web.stop()

    host.start()
    try:
        anyio.run(main)
    finally:
        host.stop()


async def until_waiting(web: WebTeam) -> tuple[str, str]:
    """The member and id of the first call that waits for a decision."""
    with anyio.fail_after(30):
        async for _ in web.log.frames():
            if web.waiting():
                waiting = web.waiting()[0]
                assert waiting["tool_call_id"] == f"{waiting['member']}:{waiting['call_id']}"
                return waiting["member"], waiting["call_id"]
    raise AssertionError("no call waited")


async def refused_after_its_stop(web: WebTeam) -> None:
    """Start a run, stop it once its call waits: every decision on it is refused, saying so."""
    run = web.start_run("purge")
    who, call_id = await until_waiting(web)
    assert await web.stop() is True
    for approve in (True, False):
        with pytest.raises(DecisionRefusedError, match=f"run {run!r} was stopped"):
            await web.decide(who, call_id, approve)
    assert web.waiting() == []


def test_once_a_stop_is_acknowledged_every_decision_on_its_run_is_refused(tmp_path):
    host, marker = served(tmp_path)
    drive(host, refused_after_its_stop)
    assert not marker.exists()  # the call never ran


def test_a_decision_goes_off_the_loop_and_counts_once_the_team_took_it(tmp_path):
    hook = HeldApproval()
    host, marker = served(tmp_path, (hook,))
    told: list[str] = []

    async def decide(web: WebTeam, who: str, call_id: str, approve: bool) -> None:
        try:
            told.append(await web.decide(who, call_id, approve))
        except DecisionRefusedError as exc:
            told.append(f"refused: {exc}")

    async def body(web: WebTeam) -> None:
        web.start_run("purge")
        who, call_id = await until_waiting(web)
        async with anyio.create_task_group() as group:
            group.start_soon(decide, web, who, call_id, True)
            assert await anyio.to_thread.run_sync(hook.entered.wait, 8)
            # the team holds the decision; the server's loop runs on, the call not yet decided
            assert [w["call_id"] for w in web.waiting()] == [call_id]
            group.start_soon(decide, web, who, call_id, False)  # waits for the first
            await anyio.sleep(0.05)
            assert told == []
            hook.release.set()
        assert told[0].startswith("approved purge") and "was already approved" in told[1]
        with anyio.fail_after(30):  # the approved call runs after its decision is taken
            async for frames in web.log.frames():
                if b'"type":"RUN_FINISHED"' in frames:
                    break

    drive(host, body)
    assert marker.read_text() == "purged\n"


def test_a_stop_waits_for_the_decision_on_its_way_and_refuses_the_next(tmp_path):
    hook = HeldApproval()
    host, _ = served(tmp_path, (hook,))
    told: list[str] = []
    stopped = anyio.Event()

    async def body(web: WebTeam) -> None:
        web.start_run("purge")
        who, call_id = await until_waiting(web)

        async def approve() -> None:
            told.append(await web.decide(who, call_id, True))

        async def stop() -> None:
            assert await web.stop() is True
            stopped.set()

        async with anyio.create_task_group() as group:
            group.start_soon(approve)
            assert await anyio.to_thread.run_sync(hook.entered.wait, 8)
            group.start_soon(stop)
            await anyio.wait_all_tasks_blocked()  # the stop has begun: it waits
            with pytest.raises(DecisionRefusedError, match="was stopped"):
                await web.decide(who, call_id, False)
            assert not stopped.is_set()  # not acknowledged while a decision is on its way
            hook.release.set()
        assert told[0].startswith("approved purge") and stopped.is_set()

    drive(host, body)


def test_a_decision_the_team_refuses_leaves_the_call_undecided(tmp_path):
    host, marker = served(tmp_path)

    async def body(web: WebTeam) -> None:
        web.start_run("purge")
        who, call_id = await until_waiting(web)
        host.team.agents[who].stop()  # as if its host died (before the run sees it end)
        with pytest.raises(DecisionRefusedError, match=r"the team did not take the "
                                                       r"decision.*AgentStoppedError"):
            await web.decide(who, call_id, True)
        with pytest.raises(DecisionRefusedError) as again:  # never "already approved"
            await web.decide(who, call_id, True)
        assert "already" not in str(again.value)

    drive(host, body)
    assert not marker.exists()


def test_an_unknown_member_is_named_as_such(tmp_path):
    host, _ = served(tmp_path)

    async def body(web: WebTeam) -> None:
        with pytest.raises(DecisionRefusedError, match="no member 'x'"):
            await web.decide("x", "call_1", True)

    drive(host, body)


def test_a_ray_team_whose_host_died_refuses_the_decision_with_a_reason(ray_cluster, tmp_path):
    import ray

    marker = tmp_path / "marker"
    lead = member("lead", [call("purge", marker=str(marker)), "Purged."], tools=["purge"],
                  auto_execute_tools=False, approval_policy="marked")
    host = TeamHost(team_config(lead, runtime=RayRuntime(backend="ray", max_restarts=0)),
                    tools=[purge])
    told: list[str] = []

    async def body(web: WebTeam) -> None:
        web.start_run("purge")
        who, call_id = await until_waiting(web)
        pid = await anyio.to_thread.run_sync(
            lambda: ray.get(host.team.agents[who].handle.pid.remote(), timeout=60))
        os.kill(pid, signal.SIGKILL)
        for _ in range(2):  # refused each time, saying why; never "already approved"
            with pytest.raises(DecisionRefusedError) as refused:
                await web.decide(who, call_id, True)
            told.append(str(refused.value))

    drive(host, body)
    assert all("already" not in reason and call_id_of(reason) for reason in told), told
    assert not marker.exists()


def call_id_of(reason: str) -> bool:
    """Whether a refusal names the call (and so says which one it refused)."""
    return "'call_" in reason

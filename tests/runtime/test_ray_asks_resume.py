"""kill -9 of a Ray host while one of its members asks a teammate as a tool (a fresh instance,
run in the caller's host): Ray restarts the host, the member's turn resumes from the session,
the callee's answer stored before the kill is used, and no tool of the callee runs twice (the
local runtime's case: tests/team/test_member_tools_sessions.py)."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

from autobyteus_like import AgentTeam, ToolContext, tool
from autobyteus_like.events import ToolStarted, TurnCompleted
from autobyteus_like.runtime import RayRuntime
from autobyteus_like.store import Session
from tests.runtime.scripted_teams import call, calls, member, team_config, until_quiet

RUNS = Path("/nonexistent")
"""Where the tools below note each run (set by the test; travels with the tools by value)."""


@tool
def pay(amount: int) -> str:
    """Pay an amount (an effect that must not happen twice)."""
    with open(RUNS / "pay", "a") as ledger:
        ledger.write(f"{amount}\n")
    return f"paid {amount}"


@tool
def block(context: ToolContext) -> str:
    """Work for a long time."""
    with open(RUNS / "block", "a") as runs:
        runs.write(f"{os.getpid()}\n")
    deadline = time.monotonic() + 60
    while not context.cancelled.is_set() and time.monotonic() < deadline:
        time.sleep(0.05)  # a long job that checks now and then whether to give up
    return "finished"


def test_a_host_killed_during_an_ask_resumes_without_paying_twice(ray_cluster, tmp_path):
    global RUNS
    RUNS = tmp_path
    from ray.util.state import list_actors

    lead = member("lead", [call("send_message_to", recipient_name="worker", content="work"),
                           "asked the worker", "thanks"])
    # the worker asks the clerk beside a long call: the kill lands once the clerk has paid
    worker = member("worker", [calls(call("ask_clerk", request="pay 7"), call("block")),
                               call("send_message_to", recipient_name="lead", content="paid"),
                               "done"], tools=["ask:clerk", "block", "send_message_to"])
    clerk = member("clerk", [call("pay", amount=7), "clerk paid"], tools=["pay"])
    runtime = RayRuntime(backend="ray", max_restarts=1, members_per_worker=1)
    with Session("asks", str(tmp_path / "s.db")) as session, AgentTeam(
            team_config(lead, worker, clerk), tools=[pay, block], runtime=runtime,
            session=session) as team:
        events = team.events()
        team.send("go")
        while not (isinstance(event := events.get(timeout=60), ToolStarted)
                   and event.agent == "worker" and event.invocation.name == "block"):
            pass
        deadline = time.monotonic() + 60
        while not ((tmp_path / "block").exists() and (tmp_path / "pay").exists()):
            assert time.monotonic() < deadline, "the clerk never paid or the block never ran"
            time.sleep(0.01)
        (actor,) = list_actors(filters=[("name", "=", team.agents["worker"].actor_name)])
        os.kill(actor.pid, signal.SIGKILL)
        seen = until_quiet(events)
        events.close()
    assert seen[-1].answer == "thanks"
    ended = [e for e in seen if isinstance(e, TurnCompleted) and e.agent == "worker"]
    assert [(e.answer, e.error) for e in ended] == [("done", None)]  # resumed, not failed
    assert (tmp_path / "pay").read_text() == "7\n"  # the callee's tool ran once

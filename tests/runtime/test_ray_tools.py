"""``@tool(resources=...)``: the body runs as a Ray task, with the same approval, timeout and
result ordering as a local tool."""

from __future__ import annotations

import json
import os
import time

import pytest

from autobyteus_like import AgentTeam, ToolDeclarationError, tool
from autobyteus_like.events import ApprovalRequested, ToolResultReceived
from autobyteus_like.runtime import RayRuntime
from tests.runtime.scripted_teams import call, calls, member, team_config, until_quiet

RAY = RayRuntime(backend="ray")


@tool(resources={"num_cpus": 1})
def where_am_i(label: str) -> dict:
    """Say which process and Ray task ran this.

    Args:
        label: Echoed back.
    """
    import ray

    context = ray.get_runtime_context()
    return {"label": label, "pid": os.getpid(), "task": context.get_task_id(),
            "actor": context.get_actor_id()}


@tool
def host_pid() -> int:
    """The pid of the process running the member."""
    return os.getpid()


@tool(resources={"num_cpus": 1}, timeout_s=1)
def sleeps_long(seconds: float) -> str:
    """Sleep.

    Args:
        seconds: How long.
    """
    time.sleep(seconds)
    return "woke up"


@tool(resources={"num_cpus": 1}, requires_approval=True)
def guarded(note: str) -> str:
    """Needs approval.

    Args:
        note: Anything.
    """
    return f"ran {note}"


def shown_results(request) -> list[dict]:
    """The tool results the LLM was shown in a request, in the order shown."""
    lines = request.messages[-1].content.splitlines()[1:]
    return [json.loads(line)["tool_result"] for line in lines]


def test_a_tool_with_resources_runs_as_a_ray_task_and_results_keep_the_call_order(ray_cluster):
    worker = member("worker", [
        calls(call("where_am_i", label="first"), call("host_pid"),
              call("where_am_i", label="third")),
        "done"], tools=["where_am_i", "host_pid"])
    tools = [where_am_i, host_pid]
    with AgentTeam(team_config(worker), tools=tools, runtime=RAY) as team:
        assert team.run("go", timeout=60) == "done"
        llm = team.agents["worker"].fetch_llm()
    first, host, third = (result["content"] for result in shown_results(llm.requests[1]))
    assert first["label"] == "first" and third["label"] == "third"  # the order asked for
    for task in (first, third):
        assert task["task"] is not None and task["actor"] is None  # a task, not an actor
        assert task["pid"] not in (host, os.getpid())  # neither the member's nor the driver's


def test_a_ray_task_past_its_timeout_is_a_timeout_result_and_the_task_is_cancelled(ray_cluster):
    from ray.util.state import list_tasks

    def tool_tasks():
        return list_tasks(filters=[("name", "=", "run_tool_body")], limit=10000)

    earlier = {task.task_id for task in tool_tasks()}  # other tests' (their states may be stale)
    worker = member("worker", [call("sleeps_long", seconds=120), "gave up"],
                    tools=["sleeps_long"])
    with AgentTeam(team_config(worker), tools=[sleeps_long], runtime=RAY) as team:
        events = team.events()
        started = time.monotonic()  # from the ask: the team's start takes seconds under load
        team.send("go")
        seen = until_quiet(events)
        assert time.monotonic() - started < 60  # its 1 s timeout, not its 120 s sleep
        deadline = time.monotonic() + 60
        while True:  # the state API has no event to wait on: poll it with a deadline
            states = {(t.state, t.error_type) for t in tool_tasks() if t.task_id not in earlier}
            if ("FAILED", "TASK_CANCELLED") in states or time.monotonic() > deadline:
                break
            time.sleep(0.2)
    results = [e.result for e in seen if isinstance(e, ToolResultReceived)]
    assert [(r.tool_name, r.error.code) for r in results] == [("sleeps_long", "TIMEOUT")]
    assert states == {("FAILED", "TASK_CANCELLED")}  # cancelled while the team still ran


def test_a_denied_ray_tool_never_becomes_a_task(ray_cluster):
    from ray.util.state import list_tasks

    before = len(list_tasks(filters=[("name", "=", "run_tool_body")], limit=10000))
    worker = member("worker", [call("guarded", note="x"), "not allowed then"],
                    tools=["guarded"], auto_execute_tools=False)

    def deny(event):
        if isinstance(event, ApprovalRequested):
            team.deny(event.agent, event.invocation.id, "not today")

    with AgentTeam(team_config(worker), tools=[guarded], runtime=RAY) as team:
        events = team.events()
        team.send("go")
        seen = until_quiet(events, on_event=deny)
    results = [e.result for e in seen if isinstance(e, ToolResultReceived)]
    assert [(r.error.code, r.error.message) for r in results] == [("DENIED", "denied: not today")]
    assert len(list_tasks(filters=[("name", "=", "run_tool_body")], limit=10000)) == before


@pytest.mark.parametrize("resources, problem", [
    ({"num_gpu": 1}, "num_gpu: Extra inputs are not permitted"),
    ({"num_cpus": -1}, "num_cpus: Input should be greater than or equal to 0"),
    ({"custom": {"tpu": "many"}}, "custom.tpu: Input should be a valid number"),
])
def test_bad_tool_resources_are_a_declaration_error_naming_them(resources, problem):
    with pytest.raises(ToolDeclarationError) as caught:
        tool(resources=resources)(host_pid.function)
    assert f"tool 'host_pid': resources: {problem}" in str(caught.value)

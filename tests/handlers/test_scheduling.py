"""The turn's scheduling policy on its own: no actors, no threads."""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import FrameType
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from autobyteus_like import ToolInvocation, ToolResult, tool
from autobyteus_like.handlers import _scheduling as scheduling
from autobyteus_like.handlers._scheduling import SlotState, TurnSchedule


@tool
def fast() -> str:
    """Parallel by default."""
    return "ok"


@tool(sequential=True)
def barrier() -> str:
    """Runs alone."""
    return "ok"


def call(n: int) -> ToolInvocation:
    return ToolInvocation(id=f"c{n}", name=f"t{n}")


def ready(schedule: TurnSchedule, *tools):  # type: ignore[no-untyped-def]
    slots = [schedule.add(call(n), t) for n, t in enumerate(tools)]
    for slot in slots:
        schedule.make_ready(slot)
    return slots


def ids(slots) -> list[str]:  # type: ignore[no-untyped-def]
    return [slot.invocation.id for slot in slots]


def test_parallel_mode_starts_every_ready_call_at_once():
    schedule = TurnSchedule(sequential=False)
    ready(schedule, fast, fast, fast)
    assert ids(schedule.startable()) == ["c0", "c1", "c2"]
    assert schedule.startable() == []  # already running
    assert schedule.running and not schedule.done


def test_sequential_mode_runs_one_call_at_a_time_in_order():
    schedule = TurnSchedule(sequential=True)
    ready(schedule, fast, fast, fast)
    for expected in ("c0", "c1", "c2"):
        [started] = schedule.startable()
        assert started.invocation.id == expected
        assert schedule.startable() == []
        schedule.finish(expected, ToolResult.success(started.invocation, "ok"))
    assert schedule.done and not schedule.running


def test_a_sequential_tool_is_a_barrier_in_parallel_mode():
    schedule = TurnSchedule(sequential=False)
    slots = ready(schedule, fast, barrier, fast)
    assert ids(schedule.startable()) == ["c0"]          # the barrier waits for c0
    schedule.finish("c0", ToolResult.success(slots[0].invocation, "ok"))
    assert ids(schedule.startable()) == ["c1"]          # then runs alone
    assert schedule.startable() == []                    # nothing after it meanwhile
    schedule.finish("c1", ToolResult.success(slots[1].invocation, "ok"))
    assert ids(schedule.startable()) == ["c2"]


def test_a_call_not_yet_ready_holds_back_only_what_a_barrier_would():
    schedule = TurnSchedule(sequential=False)
    first = schedule.add(call(0), fast)                  # still being validated
    second = schedule.add(call(1), fast)
    schedule.make_ready(second)
    assert ids(schedule.startable()) == ["c1"]
    schedule.await_approval(first)
    assert schedule.waiting_for_approval
    schedule.make_ready(first)
    assert not schedule.waiting_for_approval and ids(schedule.startable()) == ["c0"]


def test_results_come_back_in_invocation_order_and_strays_do_not_count():
    schedule = TurnSchedule(sequential=False)
    slots = ready(schedule, fast, fast, fast)
    schedule.startable()
    for index in (2, 0, 1):
        invocation = slots[index].invocation
        assert schedule.finish(invocation.id, ToolResult.success(invocation, index)) is not None
    assert schedule.finish("c1", ToolResult.success(call(1), "again")) is None  # duplicate
    assert schedule.finish("nope", ToolResult.success(call(9), "stray")) is None
    assert [result.content for result in schedule.results()] == [0, 1, 2]
    assert schedule.done


@given(st.lists(st.tuples(st.booleans(), st.booleans()), min_size=1, max_size=12),
       st.booleans(), st.randoms(use_true_random=False))
def test_whatever_order_calls_finish_in_every_call_runs_once_and_barriers_hold(
        shape, sequential, rng):
    schedule = TurnSchedule(sequential=sequential)
    slots = [schedule.add(call(n), barrier if is_barrier else fast)
             for n, (is_barrier, _) in enumerate(shape)]
    for slot, (_, approved_late) in zip(slots, shape, strict=True):
        if approved_late:
            schedule.await_approval(slot)
        else:
            schedule.make_ready(slot)
    started: list[str] = []
    running: set[str] = set()
    waiting = [slot for slot in slots if slot.state is SlotState.AWAITING_APPROVAL]
    while not schedule.done:
        for slot in schedule.startable():
            alone = sequential or slot.tool is barrier
            assert not (alone and running), "a barrier started beside another call"
            assert not any(s.invocation.id in running and (sequential or s.tool is barrier)
                           for s in slots), "something started beside a running barrier"
            started.append(slot.invocation.id)
            running.add(slot.invocation.id)
        choices = list(running) + ([waiting[0].invocation.id] if waiting else [])
        assert choices, "the schedule is stuck"
        pick = rng.choice(choices)
        if pick in running:
            running.discard(pick)
            schedule.finish(pick, ToolResult.success(call(0), "ok"))
        else:
            schedule.make_ready(waiting.pop(0))
    assert sorted(started) == sorted(s.invocation.id for s in slots)
    assert len(started) == len(set(started))


def python_steps_in_scheduling(run: Callable[[], None]) -> int:
    """How many lines of ``handlers/_scheduling.py`` ``run`` executes (its generator
    expressions and comprehensions included): a count of the schedule's own work that is the
    same on a quiet machine and a loaded one, where a timing is not."""
    source = scheduling.__file__
    steps = 0

    def in_scheduling(frame: FrameType, event: str, arg: object) -> Any:
        if frame.f_code.co_filename != source:
            return None
        def count(frame: FrameType, event: str, arg: object) -> Any:
            nonlocal steps
            if event == "line":
                steps += 1
            return count
        return count

    previous = sys.gettrace()
    sys.settrace(in_scheduling)
    try:
        run()
    finally:
        sys.settrace(previous)
    return steps


def test_a_response_of_many_calls_schedules_in_linear_time():
    """Thousands of calls in one response: each add, start and finish does a bounded number of
    the schedule's own steps (its heaps are C), so three thousand calls cost the same per call
    as three hundred. The schedule that scanned every slot on each start did ~n steps per call
    here (8,000 calls took 80 s)."""

    def steps_per_call(n: int, sequential: bool) -> float:
        def run() -> None:
            schedule = TurnSchedule(sequential=sequential)
            slots = [schedule.add(call(i), barrier if i % 50 == 0 else fast) for i in range(n)]
            for slot in slots:
                schedule.make_ready(slot)
            done = 0
            while not schedule.done:
                for slot in schedule.startable():
                    schedule.finish(slot.invocation.id, ToolResult.success(slot.invocation, "ok"))
                    done += 1
            assert done == n

        return python_steps_in_scheduling(run) / n

    for sequential in (False, True):
        small, large = steps_per_call(300, sequential), steps_per_call(3_000, sequential)
        assert small > 10, small  # the count sees the schedule's work
        assert large < 1.5 * small, (sequential, small, large)  # quadratic would be ~10x


def test_waiting_only_for_people_once_nothing_else_can_move():
    schedule = TurnSchedule(sequential=False)
    asked, other = schedule.add(call(0), fast), schedule.add(call(1), fast)
    schedule.await_approval(asked)
    assert schedule.waiting_for_approval and not schedule.waiting_only_for_people  # 1 pending
    schedule.make_ready(other)
    [started] = schedule.startable()
    assert not schedule.waiting_only_for_people  # one still runs
    schedule.finish(started.invocation.id, ToolResult.success(started.invocation, "x"))
    assert schedule.waiting_only_for_people
    schedule.make_ready(asked)
    assert not schedule.waiting_only_for_people

"""A property over responses mixing ordinary calls and handoffs, the ordinary calls finishing
in a random order (or one at a time, sequential), on the local runtime: results in invocation
order, each body run once, the handoff run only after every other call settled, the first
handoff the one that wins, and the receiver's history well paired (every call with its result,
in order)."""

from __future__ import annotations

import json
import threading

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from autobyteus_like import AgentConfig, AgentTeam, ScriptedLLM, TeamConfig, tool
from autobyteus_like.events import ToolResultReceived, ToolStarted
from autobyteus_like.history._replay import history_problems


class Gate:
    """Lets the ordinary calls finish in a given order (each waits for its turn)."""

    def __init__(self, order: list[int]) -> None:
        self.order, self.done, self.ran = order, 0, list[int]()
        self.lock = threading.Condition()

    def finish(self, n: int) -> str:
        with self.lock:
            self.ran.append(n)
            if not self.lock.wait_for(lambda: self.order[self.done] == n, timeout=10):
                raise RuntimeError(f"call {n} never got its turn")
            self.done += 1
            self.lock.notify_all()
        return f"step {n}"


gate = Gate([])


@tool
def step(n: int) -> str:
    """One ordinary step.

    Args:
        n: Its number.
    """
    return gate.finish(n)


def _written(kinds: list[str]) -> str:
    calls = []
    for position, kind in enumerate(kinds):
        if kind == "step":
            calls.append({"name": "step", "arguments": {"n": position}})
        else:
            calls.append({"name": "transfer_to_billing", "arguments": {"reason": f"h{position}"}})
    return json.dumps(calls)


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(kinds=st.lists(st.sampled_from(["step", "handoff"]), min_size=1, max_size=5),
       execution=st.sampled_from(["parallel", "sequential"]), data=st.data())
def test_mixed_responses_settle_in_order_and_hand_over_once(
        kinds: list[str], execution: str, data: st.DataObject) -> None:
    global gate
    steps = [position for position, kind in enumerate(kinds) if kind == "step"]
    # sequential calls finish in invocation order; parallel ones in any order drawn
    gate = Gate(steps if execution == "sequential" else data.draw(st.permutations(steps)))
    handoffs = [position for position, kind in enumerate(kinds) if kind == "handoff"]
    triage = AgentConfig(name="triage", llm=ScriptedLLM([_written(kinds), "triage done"]),
                         tools=["step"], handoffs=["billing"], tool_format="json",
                         tool_execution=execution)
    billing = AgentConfig(name="billing", llm=ScriptedLLM(["billing here"]),
                          tool_format="native")
    config = TeamConfig(name="desk", coordinator="triage", members=[triage, billing])
    with AgentTeam(config, tools=[step]) as team:
        events = team.events()
        answer = team.run("go", timeout=20)
        holder = team.agents["billing"] if handoffs else team.agents["triage"]
        history = holder.history  # type: ignore[attr-defined]
    seen = []
    while (event := events.get(timeout=5)) is not None:
        seen.append(event)
    assert sorted(gate.ran) == steps  # each body ran once
    assert gate.done == len(steps)
    assert answer == ("billing here" if handoffs else "triage done")
    assert history_problems(history) == []  # every call paired with its result, in order
    response = next(m for m in history if m.role == "assistant" and m.tool_calls)
    results = history[history.index(response) + 1].results
    assert [r.invocation_id for r in results] == [c.id for c in response.tool_calls]
    for position, result in enumerate(results):
        if kinds[position] == "step":
            assert result.content == f"step {position}"
        elif position == handoffs[0]:
            assert result.status == "success" and result.content == "Transferred to billing."
        else:
            assert result.status == "failure" and "only one handoff" in result.error.message
            assert result.started is False
    if handoffs:  # the winning handoff started only once every step had its result
        ids = {c.id: n for n, c in enumerate(response.tool_calls)}
        started = [i for i, e in enumerate(seen) if isinstance(e, ToolStarted)
                   and ids.get(e.invocation.id) == handoffs[0]]
        finished = [i for i, e in enumerate(seen) if isinstance(e, ToolResultReceived)
                    and e.agent == "triage" and kinds[ids[e.result.invocation_id]] == "step"]
        assert len(started) == 1 and all(i < started[0] for i in finished)

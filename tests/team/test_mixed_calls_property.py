"""One property over responses mixing all three kinds of call a member makes in a team:
ordinary calls, members asked as tools (``ask:NAME``) and handoffs (``transfer_to_NAME``),
the ordinary calls and the asks finishing in a random order. On the local runtime, with real
actors: results in invocation order, each body (a tool's, a callee's turn) run once, the first
handoff started only after every other call of the response settled and the others refused,
and the conversation's holder given a history where every call is paired with its result."""

from __future__ import annotations

import json
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from autobyteus_like import AgentConfig, AgentTeam, ScriptedLLM, TeamConfig, tool
from autobyteus_like.events import ToolResultReceived, ToolStarted
from autobyteus_like.history._replay import history_problems
from autobyteus_like.llm import LLMRequest
from tests.team.test_member_tools_order import Sequencer


@st.composite
def responses(draw: st.DrawFn) -> tuple[list[str], list[str]]:
    """The kinds of the calls in invocation order, and the order the bodies finish in."""
    kinds = draw(st.lists(st.sampled_from(["work", "ask", "handoff"]), min_size=1,
                          max_size=6))
    bodies = [f"t{i}" for i, kind in enumerate(kinds) if kind != "handoff"]
    return kinds, draw(st.permutations(bodies))


@settings(max_examples=15, deadline=None)
@given(responses())
def test_every_call_settles_in_order_and_the_first_handoff_runs_last(case):
    kinds, finishing = case
    sequencer = Sequencer(finishing)

    @tool
    def work(token: str) -> str:
        """Do some work."""
        sequencer.finish(token)
        return f"worked {token}"

    def answer(request: LLMRequest) -> str:
        token = str(request.messages[-1].content)
        sequencer.finish(token)
        return f"answered {token}"

    def written(i: int, kind: str) -> dict:
        if kind == "work":
            return {"name": "work", "arguments": {"token": f"t{i}"}}
        if kind == "ask":
            return {"name": "ask_helper", "arguments": {"request": f"t{i}"}}
        return {"name": "transfer_to_billing", "arguments": {"reason": f"h{i}"}}

    first = json.dumps([written(i, kind) for i, kind in enumerate(kinds)])
    lead = AgentConfig(name="lead", llm=ScriptedLLM([first, "lead done"]), tool_format="json",
                       tools=["work", "ask:helper"], handoffs=["billing"])
    helper = AgentConfig(name="helper", llm=ScriptedLLM([answer] * 6), tool_format="json")
    billing = AgentConfig(name="billing", llm=ScriptedLLM(["billing here"]),
                          tool_format="xml")
    config = TeamConfig(name="t", coordinator="lead", members=[lead, helper, billing])
    handoffs = [i for i, kind in enumerate(kinds) if kind == "handoff"]
    with AgentTeam(config, tools=[work]) as team:
        events = team.events()
        answer_given = team.run("go", timeout=30)
        holder = team.agents["billing" if handoffs else "lead"]
        history = list(holder.history)  # type: ignore[attr-defined]
    seen = []
    while (event := events.get(timeout=5)) is not None:
        seen.append(event)

    assert answer_given == ("billing here" if handoffs else "lead done")
    assert sequencer.ran == Counter(finishing) and max(sequencer.ran.values(), default=1) == 1
    assert history_problems(history) == []  # every call paired with its result, in order
    response = next(m for m in history if m.role == "assistant" and m.tool_calls)
    results = history[history.index(response) + 1].results
    assert [r.invocation_id for r in results] == [c.id for c in response.tool_calls]
    for i, (kind, result) in enumerate(zip(kinds, results, strict=True)):
        if kind == "work":
            assert result.content == f"worked t{i}"
        elif kind == "ask":
            assert result.content == f"answered t{i}"
        elif i == handoffs[0]:
            assert result.status == "success"
        else:
            assert result.status == "failure" and result.started is False
    if handoffs:  # the winning handoff started once every other call had its result
        position = {c.id: n for n, c in enumerate(response.tool_calls)}
        started = [n for n, e in enumerate(seen) if isinstance(e, ToolStarted)
                   and position.get(e.invocation.id) == handoffs[0]]
        others = [n for n, e in enumerate(seen) if isinstance(e, ToolResultReceived)
                  and e.agent == "lead" and kinds[position[e.result.invocation_id]] != "handoff"]
        assert len(started) == 1 and all(n < started[0] for n in others)

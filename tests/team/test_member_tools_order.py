"""A property over responses mixing ordinary calls and member calls (``ask:NAME``), finishing
in a random order: every result comes back in invocation order, and every body (each tool's,
each callee's turn) runs exactly once. On the local runtime, with real actors: the bodies
finish in the order a ``Sequencer`` draws (each waits for its turn), never on sleeps."""

from __future__ import annotations

import json
import threading
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from autobyteus_like import AgentConfig, AgentTeam, ScriptedLLM, TeamConfig, tool
from autobyteus_like.llm import LLMRequest


class Sequencer:
    """Lets bodies finish only in a given order of their tokens."""

    def __init__(self, order: list[str]) -> None:
        self._order = order
        self._done = 0
        self._ready = threading.Condition()
        self.ran: Counter[str] = Counter()

    def finish(self, token: str) -> None:
        with self._ready:
            self.ran[token] += 1
            if not self._ready.wait_for(lambda: self._order[self._done] == token, timeout=20):
                raise TimeoutError(f"{token} never had its turn in {self._order}")
            self._done += 1
            self._ready.notify_all()


@st.composite
def responses(draw: st.DrawFn) -> tuple[list[tuple[str, str]], list[str]]:
    """Calls as (tool, token) in invocation order, and the order they finish in."""
    kinds = draw(st.lists(st.sampled_from(["work", "ask_helper", "ask_other"]), min_size=1,
                          max_size=6))
    written = [(kind, f"t{i}") for i, kind in enumerate(kinds)]
    return written, draw(st.permutations([token for _, token in written]))


@settings(max_examples=12)
@given(responses())
def test_results_come_back_in_invocation_order_and_each_body_runs_once(case):
    written, finishing = case
    sequencer = Sequencer(finishing)

    @tool
    def work(token: str) -> str:
        """Do some work."""
        sequencer.finish(token)
        return f"worked {token}"

    def answer(request: LLMRequest) -> str:
        token = request.messages[-1].content
        sequencer.finish(token)
        return f"answered {token}"

    first = json.dumps([{"name": kind, "arguments": {"token": token} if kind == "work" else
                         {"request": token}} for kind, token in written])
    lead = AgentConfig(name="lead", llm=ScriptedLLM([first, "ok"]), tool_format="json",
                       tools=["work", "ask:helper", "ask:other"])
    helper = AgentConfig(name="helper", llm=ScriptedLLM([answer] * 6), tool_format="json")
    other = AgentConfig(name="other", llm=ScriptedLLM([answer] * 6), tool_format="json")
    config = TeamConfig(name="t", coordinator="lead", members=[lead, helper, other])
    with AgentTeam(config, tools=[work]) as team:
        assert team.run("go", timeout=30) == "ok"
    shown = [json.loads(line)["tool_result"]["content"]
             for line in lead.llm.requests[1].messages[-1].content.splitlines()[1:]]
    assert shown == [f"worked {token}" if kind == "work" else f"answered {token}"
                     for kind, token in written]
    assert sequencer.ran == Counter(token for _, token in written)  # each body once
    assert max(sequencer.ran.values()) == 1

"""The LLM worker's thread: started by a request, ended by idleness, started again by the next."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable

from autobyteus_like import Agent, AgentConfig, ScriptedLLM, tool
from autobyteus_like.agent import _llm_worker as llm_worker
from autobyteus_like.agent import _tool_runner as tool_runner
from autobyteus_like.llm._messages import LLMRequest


def test_an_idle_agent_gives_back_its_llm_and_tool_threads_and_takes_new_ones(monkeypatch):
    monkeypatch.setattr(llm_worker, "LLM_THREAD_IDLE_S", 0.3)
    monkeypatch.setattr(tool_runner, "TOOL_THREAD_IDLE_S", 0.3)
    ran_on: list[str] = []

    @tool
    def noop() -> str:
        """Do nothing."""
        ran_on.append(threading.current_thread().name)
        return "ok"

    def answer(text: str) -> Callable[[LLMRequest], str]:
        """A scripted response that notes the thread that streams it."""

        def respond(request: LLMRequest) -> str:
            ran_on.append(threading.current_thread().name)
            return text
        return respond

    call = json.dumps({"name": "noop", "arguments": {}})
    llm = ScriptedLLM([answer(call), answer("done"), answer(call), answer("done again")])
    before = set(threading.enumerate())
    with Agent(AgentConfig(name="idler", llm=llm, tools=[noop], tool_format="json")) as agent:
        assert agent.run("go", timeout=10) == "done"
        first = set(ran_on)
        assert {name.rsplit("-", 1)[0] for name in first} == {"idler-llm", "idler-tool"}
        actor = [t for t in set(threading.enumerate()) - before if t.name.startswith("Agent")]
        for thread in set(threading.enumerate()) - before - set(actor):
            thread.join(10)  # idle for 0.3 s: it ends by itself
        assert set(threading.enumerate()) - before == set(actor)  # only the actor is left
        del ran_on[:]
        assert agent.run("again", timeout=10) == "done again"
        assert {name.rsplit("-", 1)[0] for name in ran_on} == {"idler-llm", "idler-tool"}
        assert not set(ran_on) & first  # new threads took the second turn

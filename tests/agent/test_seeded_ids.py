"""An agent seeded with its own saved conversation gives each new call an id no seeded call
has: ids stay unique across a seeded history."""

from __future__ import annotations

import json

from autobyteus_like import Agent, AgentConfig, ScriptedLLM, tool
from autobyteus_like.history._messages import history_from_json


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


CALL = json.dumps({"name": "add", "arguments": {"a": 1, "b": 2}})


def _ids(history: list) -> list[str]:
    return [call.id for message in history for call in getattr(message, "tool_calls", ())]


def test_a_new_call_never_takes_the_id_of_a_seeded_one():
    config = AgentConfig(name="a", llm=ScriptedLLM([CALL, "3"]), tools=[add],
                         tool_format="json")
    with Agent(config) as agent:
        agent.run("1+2", timeout=10)
        saved = agent.history_json()
    seeded = history_from_json(saved)
    for how in ("config", "run"):
        # (a scripted model goes on after the seeded conversation's two replies)
        again = AgentConfig(name="a", llm=ScriptedLLM([CALL, "3", CALL, "3 again"]), tools=[add],
                            tool_format="json",
                            history=seeded if how == "config" else None)
        with Agent(again) as agent:
            if how == "config":
                agent.run("1+2 again", timeout=10)
            else:
                agent.run("1+2 again", timeout=10, history=seeded)
            ids = _ids(agent.history)
        assert len(ids) == 2 and len(set(ids)) == 2, (how, ids)  # the same call, a new id

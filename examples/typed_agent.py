"""A typed agent: every way of getting its answer gives a ``Verdict``, and a type checker sees
it (``Agent[Verdict]``; the project's mypy run checks the ``assert_type`` lines, and
tests/agent/test_typed_answers.py runs this file)."""

from __future__ import annotations

import asyncio
import json
from typing import assert_type

from pydantic import BaseModel

from autobyteus_like import Agent, AgentConfig, ScriptedLLM


class Verdict(BaseModel):
    ok: bool


def _final(ok: bool) -> str:
    return json.dumps({"name": "final_result", "arguments": {"ok": ok}})


def every_way(responses: int = 4) -> list[Verdict]:
    llm = ScriptedLLM([_final(True)] * responses)
    config = AgentConfig(name="judge", llm=llm, output_type=Verdict, tool_format="json")
    agent: Agent[Verdict] = Agent(config)
    with agent:
        ran = agent.run("one", timeout=10)
        assert_type(ran, Verdict)
        sent = agent.send("two").result(timeout=10)
        assert_type(sent, Verdict)
        with agent.stream("three") as stream:
            streamed = stream.result(timeout=10)
        assert_type(streamed, Verdict)
        awaited = asyncio.run(agent.arun("four", timeout=10))
        assert_type(awaited, Verdict)
    return [ran, sent, streamed, awaited]


def untyped() -> str:
    agent: Agent[str] = Agent(AgentConfig(name="a", llm=ScriptedLLM(["hi"])))
    with agent:
        answer = agent.send("hello").result(timeout=10)
    assert_type(answer, str)
    return answer


if __name__ == "__main__":
    print(every_way(), untyped())

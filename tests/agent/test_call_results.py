"""What a tool returns, as the LLM, the events, the session log and the store see it: capped,
JSON value by value, one serialisation everywhere."""

from __future__ import annotations

import json
import math
from datetime import date
from pathlib import Path

from autobyteus_like import Agent, AgentConfig, ScriptedLLM, tool
from autobyteus_like.agent._call_results import success_result
from autobyteus_like.events import ToolResultReceived
from autobyteus_like.store import Session
from autobyteus_like.tools._invocation import ToolInvocation

BIG = 5_000_000


@tool
def dump() -> str:
    """Return a huge text."""
    return "x" * BIG


def call(name: str) -> str:
    return json.dumps({"name": name, "arguments": {}})


def test_a_huge_result_is_cut_with_a_note_everywhere(tmp_path: Path):
    llm = ScriptedLLM([call("dump"), "done"])
    config = AgentConfig(name="a", llm=llm, tools=["dump"], tool_format="json",
                         session_log=tmp_path / "log.jsonl", session_log_format="jsonl")
    with Session("s", tmp_path / "store.db") as session, \
            Agent(config, tools=[dump], session=session) as agent:
        events = agent.events()
        assert agent.run("go", timeout=30) == "done"
        event = next(e for e in iter(lambda: events.get(timeout=5), None)
                     if isinstance(e, ToolResultReceived))
        [stored] = [c.result for c in session.store.calls("s", "a")]
    text = event.result.content
    assert len(text) < 100_200
    assert text.endswith(f"[cut: the result is {BIG} characters long; the first 100000 are "
                         "shown]")
    shown = llm.requests[1].messages[-1].content
    assert len(shown) < 101_000 and f"the result is {BIG} characters long" in shown
    assert (tmp_path / "log.jsonl").stat().st_size < 250_000
    assert len(json.dumps(stored)) < 101_000


def test_a_tool_s_own_limit_cuts_structured_results_as_json_text():
    @tool(max_result_chars=2_000)
    def rows() -> list[dict[str, int]]:
        """Return many rows."""
        return [{"row": n} for n in range(10_000)]

    llm = ScriptedLLM([call("rows"), "done"])
    config = AgentConfig(name="a", llm=llm, tools=["rows"], tool_format="json")
    with Agent(config, tools=[rows]) as agent:
        agent.run("go", timeout=30)
    shown = llm.requests[1].messages[-1].content
    assert '[{\\"row\\": 0}' in shown or '[{"row": 0}' in shown
    assert "the first 2000 are shown]" in shown and len(shown) < 3_000


def test_the_agent_limit_is_configurable():
    llm = ScriptedLLM([call("dump"), "done"])
    config = AgentConfig(name="a", llm=llm, tools=["dump"], tool_format="json",
                         max_result_chars=1_000)
    with Agent(config, tools=[dump]) as agent:
        agent.run("go", timeout=30)
    assert "the first 1000 are shown]" in llm.requests[1].messages[-1].content


INVOCATION = ToolInvocation(id="c1", name="t", arguments={})


class Opaque:
    def __repr__(self) -> str:
        return "Opaque()"


def test_bad_values_are_described_in_place_and_the_rest_stays_json():
    content = success_result(INVOCATION, {"when": date(2026, 1, 2), "raw": b"\xff\xfe\x00",
                                          "thing": Opaque(), "ok": [1, "two"]}).content
    assert content["when"] == "2026-01-02" and content["ok"] == [1, "two"]
    assert content["raw"] == "<3 bytes, not UTF-8 text; base64: //4A>"
    assert content["thing"] == "<a Opaque that cannot be serialised as JSON: Opaque()>"
    json.dumps(content, allow_nan=False)


def test_nan_is_null_for_the_llm_and_the_events_alike():
    llm = ScriptedLLM([call("ratio"), "done"])

    @tool
    def ratio() -> dict[str, float]:
        """A ratio that is not a number."""
        return {"ratio": math.nan, "top": math.inf}

    config = AgentConfig(name="a", llm=llm, tools=["ratio"], tool_format="json")
    with Agent(config, tools=[ratio]) as agent:
        events = agent.events()
        agent.run("go", timeout=30)
        event = next(e for e in iter(lambda: events.get(timeout=5), None)
                     if isinstance(e, ToolResultReceived))
    assert event.result.content == {"ratio": None, "top": None}
    shown = llm.requests[1].messages[-1].content
    assert "NaN" not in shown and "Infinity" not in shown and '"ratio": null' in shown

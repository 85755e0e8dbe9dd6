"""Hostile servers and a hostile LLM: names that break things, schemas that explode, malformed
and huge results, garbage on the wire, silence, changing tool lists, wrong or huge arguments.
Each costs a clear result or a listed problem, never a crash or a hang."""

from __future__ import annotations

import json
import sys
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from autobyteus_like import Agent, AgentConfig, ConfigError, ScriptedLLM, ToolArgumentError
from autobyteus_like.events import ApprovalRequested, ToolCallParsed
from autobyteus_like.mcp import MCPToolset
from autobyteus_like.tools._definition import _NAME
from tests.mcp.server_processes import RAW_SERVER


def call(name: str, **arguments: object) -> str:
    return json.dumps({"name": name, "arguments": arguments})


def results_shown(llm: ScriptedLLM, request: int) -> list[dict]:
    """The tool results the LLM was shown in a request (json format: one line each)."""
    lines = llm.requests[request].messages[-1].content.splitlines()[1:]
    return [json.loads(line)["tool_result"] for line in lines]


@pytest.fixture(scope="module")
def raw(tmp_path_factory):
    log = tmp_path_factory.mktemp("raw") / "raw.log"
    toolset = MCPToolset.stdio(sys.executable, [RAW_SERVER], name="raw",
                               env={"RAW_SERVER_LOG": str(log)})
    with toolset:
        yield toolset, log


def tools_of(toolset: MCPToolset) -> dict:
    return {tool.name: tool for tool in toolset.tools()}


def test_illegal_and_colliding_names_become_distinct_legal_names(raw):
    toolset, _ = raw
    names = list(tools_of(toolset))
    assert all(_NAME.match(name) and len(name) <= 128 for name in names)
    assert len(names) == len(set(names))
    assert "raw.read_file" in names  # the legal one keeps its name ...
    assert sum(name.startswith("raw.read_file_") for name in names) == 1  # ... "read file" not
    assert any(name.startswith("raw._n_c_d__tool_") for name in names)


def test_unusable_tools_are_left_out_and_listed_with_the_reason(raw):
    toolset, _ = raw
    assert toolset.problems == [
        "'ok' is listed twice; the second was left out",
        "'bomb' was left out: its inputSchema grows past 20000 nodes once its $refs are inlined",
        "'deep' was left out: its inputSchema nests more than 48 levels deep",
        "'bad_schema' was left out: its inputSchema is not valid JSON Schema: 12 is not valid "
        "under any of the given schemas",
    ]
    essay = tools_of(toolset)["raw.essay"].description
    assert len(essay) < 2_100 and essay.endswith("[description cut]")


def test_a_listing_the_sdk_cannot_read_fails_the_start_with_the_reason():
    toolset = MCPToolset.stdio(sys.executable, [RAW_SERVER, "--broken-listing"], name="raw")
    with pytest.raises(ConfigError) as error:
        toolset.start()
    assert "listing its tools failed: the server sent a malformed message: the problem: " \
           "tools.16.inputSchema: Input should be a valid dictionary" in str(error.value)


def test_malformed_huge_and_garbled_answers_each_become_one_clear_result(raw):
    toolset, _ = raw
    llm = ScriptedLLM([
        json.dumps([{"name": "raw.malformed", "arguments": {}},
                    {"name": "raw.huge", "arguments": {"size": 5_000_000}},
                    {"name": "raw.garbage_line", "arguments": {}}]),
        "survived"])
    # The default timeout: reading 5 MB off a pipe is no race against a deadline (under load
    # it once took over the 1 s this test used to give every call).
    config = AgentConfig(name="a", llm=llm, tools=["raw.*"], tool_format="json")
    with Agent(config, tools=[toolset]) as agent:
        assert agent.run("go", timeout=60) == "survived"
    malformed, huge, garbled = results_shown(llm, 1)
    assert malformed["content"]["message"].startswith(
        "MCP server 'raw' sent a malformed result for raw.malformed: 13 problems")
    assert huge["status"] == "success" and len(huge["content"]) < 100_200
    assert "the result is 5000000 characters long" in huge["content"]
    assert garbled["content"] == "answered after garbage"


def test_a_server_that_never_answers_a_call_costs_a_timeout_not_a_hang(raw):
    """The silent call ends at its timeout and the run goes on. Alone in its response: any
    call beside it would race the same 1 s deadline on a loaded machine."""
    toolset, _ = raw
    llm = ScriptedLLM([call("raw.silent"), "survived"])
    config = AgentConfig(name="a", llm=llm, tools=["raw.*"], tool_format="json",
                         tool_timeout_s=1)
    with Agent(config, tools=[toolset]) as agent:
        assert agent.run("go", timeout=60) == "survived"
    [silent] = results_shown(llm, 1)
    assert silent["content"]["code"] == "TIMEOUT"
    assert silent["content"]["message"] == "raw.silent did not finish within 1 s"


def test_a_changed_tool_list_reaches_the_agent_before_its_next_turn(tmp_path):
    toolset = MCPToolset.stdio(sys.executable, [RAW_SERVER], name="raw")
    llm = ScriptedLLM([call("raw.change"), "changed", call("raw.added"), "called it"])
    config = AgentConfig(name="a", llm=llm, tools=["raw.*"], tool_format="json")
    with Agent(config, tools=[toolset]) as agent:
        events = agent.events()
        assert agent.run("change", timeout=20) == "changed"
        # The next turn's first request shows the new tool (no sleep: the refresh is applied
        # when the turn starts, whenever the notification arrived before it).
        while "raw.added" not in agent.system_prompt:
            time.sleep(0.01)  # the notification travels from another process
        assert agent.run("use it", timeout=20) == "called it"
        events.close()
    assert "### raw.added" not in llm.requests[0].system_prompt
    assert "### raw.added" in llm.requests[2].system_prompt
    assert '"content": "called added"' in llm.requests[3].messages[-1].content


def test_policy_approval_redaction_and_the_session_log_apply_to_mcp_tools(tmp_path):
    toolset = MCPToolset.stdio(sys.executable, [RAW_SERVER], name="raw", deny=["die", "s*"],
                               requires_approval=["change"],
                               masked_arguments={"read_file": ["secret"]})
    log = tmp_path / "session.md"
    llm = ScriptedLLM([json.dumps([{"name": "raw.die", "arguments": {}},
                                   {"name": "raw.read_file", "arguments": {"secret": "4242"}},
                                   {"name": "raw.change", "arguments": {}}]), "done"])
    config = AgentConfig(name="a", llm=llm, tools=["raw.*"], tool_format="json",
                         auto_execute_tools=False, approval_policy="marked", session_log=log)
    with Agent(config, tools=[toolset]) as agent:
        assert not {"raw.die", "raw.silent"} & set(agent.tools.names())
        events = agent.events()
        reply = agent.send("go")
        parsed, asked = [], None
        while asked is None:
            event = events.get(timeout=10)
            parsed += [event] if isinstance(event, ToolCallParsed) else []
            asked = event if isinstance(event, ApprovalRequested) else None
        assert asked.invocation.name == "raw.change"
        agent.deny(asked.invocation.id, reason="not today")
        assert reply.result(timeout=20) == "done"
        events.close()
    results = results_shown(llm, 1)
    assert [r["status"] for r in results] == ["failure", "success", "failure"]
    assert results[0]["content"]["code"] == "UNKNOWN_TOOL"
    assert results[1]["content"] == "called read_file"
    assert results[2]["content"]["message"] == "denied: not today"
    shown = next(e.invocation for e in parsed if e.invocation.name == "raw.read_file")
    assert shown.arguments == {"secret": "[redacted]"}  # in events, as in the log
    assert "4242" not in log.read_text() and "[redacted]" in log.read_text()


def test_a_hostile_llm_gets_every_problem_listed_and_huge_arguments_go_through(raw):
    toolset, _ = raw
    ok = tools_of(toolset)["raw.ok"]
    with pytest.raises(ToolArgumentError) as error:
        ok.run({"items": "not a list", "extra": 1})
    assert error.value.problems == [
        "unknown argument 'extra' (this tool takes: n, items)",
        "missing required argument 'n' (integer)",
        "argument 'items': 'not a list' is not of type 'array' (got 'not a list')",
    ]
    many = [f"item {i}" for i in range(50_000)]
    assert ok.run({"n": 1, "items": many}).startswith('ok {"items": ["item 0", "item 1"')
    big = tools_of(toolset)["raw.read_file"].run({"blob": "z" * 8_000_000})
    assert big == "called read_file"


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.text(max_size=8), st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner,
                                                                max_size=3), max_leaves=10),
    max_size=4))
def test_any_arguments_are_either_valid_or_a_listed_problem(raw, arguments):
    ok = tools_of(raw[0])["raw.ok"]
    try:
        bound = ok.bind(arguments)
    except ToolArgumentError as error:
        assert error.problems
    else:
        assert isinstance(bound["n"], int)

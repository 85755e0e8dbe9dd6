"""Spans of a scripted team run by the GenAI conventions, read back from the SDK's in-memory
exporter: the exact tree across members, attribute names and values, approval and parse-error
events, and no secret in any span unless content is asked for (and then redacted)."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.semconv._incubating.attributes import gen_ai_attributes as gen_ai
from opentelemetry.trace import StatusCode

from autobyteus_like import Agent, AgentConfig, AgentTeam, ScriptedLLM, TeamConfig, tool
from autobyteus_like.errors import ToolFailure
from autobyteus_like.events import ApprovalRequested, ToolCallParsed
from autobyteus_like.llm import TokenUsage
from autobyteus_like.tools._invocation import ErrorCode
from autobyteus_like.tracing import Tracing
from tests.usage.metered_llm import MeteredLLM

SECRET = "sk-live-0123456789abcdef"
USAGE = TokenUsage(input_tokens=120, output_tokens=30, reasoning_tokens=5,
                   cached_input_tokens=20)


def call(name: str, **arguments: Any) -> str:
    return json.dumps({"name": name, "arguments": arguments})


def send(to: str, content: str) -> str:
    return call("send_message_to", recipient_name=to, content=content)


@tool(masked_arguments=("api_key",))
def lookup(query: str, api_key: str) -> str:
    """Look something up with a key.

    Args:
        query: What to look up.
        api_key: The key of the service.
    """
    if query == "fail":
        raise ToolFailure(ErrorCode.NOT_FOUND, "nothing found")
    return f"found {query}"


def team_config() -> TeamConfig:
    lead = AgentConfig(name="lead", llm=MeteredLLM(
        [send("coder", "write it"), "asked", "coder finished"], USAGE, model="gpt-4o-mini"),
        tools=["send_message_to"], tool_format="json")
    coder = AgentConfig(name="coder", llm=MeteredLLM(
        [call("lookup", query="docs", api_key=SECRET), send("lead", "written"), "reported"],
        USAGE, model="gpt-4o-mini"), tools=["send_message_to", "lookup"], tool_format="json")
    return TeamConfig(name="t", coordinator="lead", members=[lead, coder])


def tree(spans: list[ReadableSpan]) -> list[Any]:
    """Spans as nested ``(name, [children])``, children in start order."""
    by_parent: dict[int | None, list[ReadableSpan]] = {}
    for span in spans:
        by_parent.setdefault(span.parent.span_id if span.parent else None, []).append(span)

    def nest(parent: int | None) -> list[Any]:
        children = sorted(by_parent.get(parent, []), key=lambda s: s.start_time or 0)
        return [(s.name, nest(s.context.span_id)) for s in children]

    return nest(None)


def run_team(tracing: Tracing, exporter: InMemorySpanExporter) -> tuple[list[ReadableSpan], Any]:
    with AgentTeam(team_config(), tools=[lookup], tracing=tracing) as team:
        events = team.events()
        assert team.run("go", timeout=10) == "coder finished"
    seen = []
    while (event := events.get(timeout=5)) is not None:
        seen.append(event)
    return list(exporter.get_finished_spans()), seen


def test_a_team_run_is_one_trace_with_the_exact_span_tree(tracing, exporter):
    spans, _ = run_team(tracing, exporter)
    assert len({span.context.trace_id for span in spans}) == 1
    assert tree(spans) == [
        ("invoke_agent lead", [
            ("chat gpt-4o-mini", []),
            ("execute_tool send_message_to", [
                ("invoke_agent coder", [
                    ("chat gpt-4o-mini", []),
                    ("execute_tool lookup", []),
                    ("chat gpt-4o-mini", []),
                    ("execute_tool send_message_to", [
                        ("invoke_agent lead", [("chat gpt-4o-mini", [])]),
                    ]),
                    ("chat gpt-4o-mini", []),
                ]),
            ]),
            ("chat gpt-4o-mini", []),
        ]),
    ]


def test_attributes_follow_the_genai_conventions(tracing, exporter):
    spans, events = run_team(tracing, exporter)
    ids = {(e.agent, e.invocation.name): e.invocation.id
           for e in events if isinstance(e, ToolCallParsed)}
    chat = next(s for s in spans if s.name.startswith("chat"))
    assert dict(chat.attributes or {}) == {
        gen_ai.GEN_AI_OPERATION_NAME: "chat",
        gen_ai.GEN_AI_PROVIDER_NAME: "openai",
        gen_ai.GEN_AI_REQUEST_MODEL: "gpt-4o-mini",
        gen_ai.GEN_AI_AGENT_NAME: "lead",
        gen_ai.GEN_AI_USAGE_INPUT_TOKENS: 120,
        gen_ai.GEN_AI_USAGE_OUTPUT_TOKENS: 30,
        gen_ai.GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS: 20,
        gen_ai.GEN_AI_USAGE_REASONING_OUTPUT_TOKENS: 5,
    }
    tool_span = next(s for s in spans if s.name == "execute_tool lookup")
    assert dict(tool_span.attributes or {}) == {
        gen_ai.GEN_AI_OPERATION_NAME: "execute_tool",
        gen_ai.GEN_AI_TOOL_NAME: "lookup",
        gen_ai.GEN_AI_TOOL_CALL_ID: ids[("coder", "lookup")],
        gen_ai.GEN_AI_TOOL_TYPE: "function",
        gen_ai.GEN_AI_AGENT_NAME: "coder",
    }
    assert tool_span.status.status_code is StatusCode.UNSET
    turn = next(s for s in spans if s.name == "invoke_agent coder")
    assert turn.attributes is not None
    assert turn.attributes[gen_ai.GEN_AI_OPERATION_NAME] == "invoke_agent"
    assert turn.attributes[gen_ai.GEN_AI_AGENT_NAME] == "coder"
    # the coder's turn continues the lead's send_message_to call, across members
    send_span = next(s for s in spans if s.name == "execute_tool send_message_to"
                     and s.attributes and s.attributes[gen_ai.GEN_AI_AGENT_NAME] == "lead")
    assert turn.parent is not None and turn.parent.span_id == send_span.context.span_id
    assert send_span.attributes is not None
    assert send_span.attributes[gen_ai.GEN_AI_TOOL_CALL_ID] == ids[("lead", "send_message_to")]


def test_no_secret_and_no_content_in_spans_by_default(tracing, exporter):
    spans, _ = run_team(tracing, exporter)
    dumped = "".join(span.to_json() for span in spans)
    assert SECRET not in dumped
    assert "write it" not in dumped and "found docs" not in dumped  # no content at all


def test_content_on_records_arguments_and_results_redacted(exporter):
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor

    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    try:
        spans, _ = run_team(Tracing(provider=provider, capture_content=True), exporter)
    finally:
        provider.shutdown()
    dumped = "".join(span.to_json() for span in spans)
    assert SECRET not in dumped
    tool_span = next(s for s in spans if s.name == "execute_tool lookup")
    assert tool_span.attributes is not None
    arguments = json.loads(str(tool_span.attributes[gen_ai.GEN_AI_TOOL_CALL_ARGUMENTS]))
    assert arguments["query"] == "docs" and arguments["api_key"] != SECRET
    assert json.loads(str(tool_span.attributes[gen_ai.GEN_AI_TOOL_CALL_RESULT])) == "found docs"
    lead = next(s for s in spans if s.name == "invoke_agent lead")
    assert lead.attributes is not None
    assert json.loads(str(lead.attributes[gen_ai.GEN_AI_INPUT_MESSAGES])) == [
        {"role": "user", "parts": [{"type": "text", "content": "go"}]}]
    assert "asked" in str(lead.attributes[gen_ai.GEN_AI_OUTPUT_MESSAGES])


def test_approval_waits_failures_and_parse_errors_are_on_the_spans(tracing, exporter):
    broken = '{"name": "lookup", "arguments": "not an object"}'
    llm = ScriptedLLM([call("lookup", query="fail", api_key="k") + broken, "done"])
    config = AgentConfig(name="solo", llm=llm, tools=[lookup], tool_format="json",
                         auto_execute_tools=False)
    with Agent(config, tracing=tracing) as agent:
        events = agent.events()
        reply = agent.send("go")
        while not isinstance(event := events.get(timeout=5), ApprovalRequested):
            pass
        agent.approve(event.invocation.id)
        assert reply.result(timeout=10) == "done"
    spans = exporter.get_finished_spans()
    tool_span = next(s for s in spans if s.name == "execute_tool lookup")
    assert [e.name for e in tool_span.events] == ["approval_requested", "approval_granted"]
    assert tool_span.status.status_code is StatusCode.ERROR
    assert tool_span.attributes is not None
    assert tool_span.attributes["error.type"] == "NOT_FOUND"
    turn = next(s for s in spans if s.name == "invoke_agent solo")
    assert [e.name for e in turn.events] == ["gen_ai.tool.call.parse_error"]
    assert [s.name for s in spans if s.name.startswith("chat")] == ["chat scripted"] * 2


def test_an_agent_that_stops_mid_turn_ends_its_open_spans(tracing, exporter):
    config = AgentConfig(name="solo", llm=ScriptedLLM([call("lookup", query="x", api_key="k")]),
                         tools=[lookup], tool_format="json", auto_execute_tools=False)
    with Agent(config, tracing=tracing) as agent:
        events = agent.events()
        agent.send("go")
        while not isinstance(events.get(timeout=5), ApprovalRequested):
            pass
    spans = exporter.get_finished_spans()
    assert sorted(s.name for s in spans) == ["chat scripted", "execute_tool lookup",
                                             "invoke_agent solo"]
    assert {s.name: s.status.status_code for s in spans}["execute_tool lookup"] is \
        StatusCode.ERROR


def test_without_an_sdk_nothing_of_opentelemetry_is_imported():
    code = (
        "import sys\n"
        "from autobyteus_like import Agent, AgentConfig, ScriptedLLM\n"
        "with Agent(AgentConfig(name='a', llm=ScriptedLLM(['hi']))) as agent:\n"
        "    assert agent.run('x', timeout=10) == 'hi'\n"
        "print(sorted(m for m in sys.modules if m.startswith('opentelemetry')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60, check=True).stdout
    assert out.strip() == "[]"


def test_a_format_switch_of_tool_format_auto_is_on_its_chat_span(tracing, exporter):
    xml_call = ('<tool name="lookup"><arguments><arg name="query">q</arg>'
                '<arg name="api_key">k</arg></arguments></tool>')
    llm = ScriptedLLM(["No call.", xml_call, "done"])
    config = AgentConfig(name="solo", llm=llm, tools=[lookup], tool_format="auto",
                         tool_choice="required")
    with Agent(config, tracing=tracing) as agent:
        assert agent.run("go", timeout=10) == "done"
    chats = [s for s in exporter.get_finished_spans() if s.name.startswith("chat")]
    first = chats[0].attributes or {}
    assert first["autobyteus.adapted.tool_format"] == "xml"
    assert "without the tool call its tool_choice requires" in str(
        first["autobyteus.adapted.tool_format.reason"])
    assert "autobyteus.adapted.tool_format" not in (chats[1].attributes or {})

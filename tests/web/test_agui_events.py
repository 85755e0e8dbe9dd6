"""A run's events as AG-UI events: text per member and response, calls numbered per member in
the order written, results with the order they finished; every event valid AG-UI."""

from __future__ import annotations

import json

from ag_ui.core import Event
from ag_ui.encoder import EventEncoder
from pydantic import TypeAdapter

from autobyteus_like.events import (
    ApprovalDenied,
    ApprovalRequested,
    AssistantTextDelta,
    LLMResponseCompleted,
    ToolCallParsed,
    ToolResultReceived,
)
from autobyteus_like.tools._invocation import ErrorCode, ToolInvocation, ToolResult
from autobyteus_like.usage._report import UsageReport
from autobyteus_like.usage._totals import UsageTotals
from autobyteus_like.web._agui_events import AguiRun


def usage() -> UsageReport:
    return UsageReport(UsageTotals(), UsageTotals())


def run_of(events):
    run = AguiRun("thread", "r1", usage)
    out = run.started("go")
    for event in events:
        out += run.translate(event)
    return out + run.finished("answer")


def wire(events):
    """Encoded by the package's encoder and read back as AG-UI events."""
    encoder, adapter = EventEncoder(), TypeAdapter(Event)
    back = []
    for event in events:
        frame = encoder.encode(event)
        assert frame.startswith("data: ") and frame.endswith("\n\n")
        back.append(adapter.validate_python(json.loads(frame[6:])))
    return back


def test_text_calls_and_results_of_two_members():
    a1 = ToolInvocation(id="c1", name="echo", arguments={"text": "<b>x</b>"})
    a2 = ToolInvocation(id="c2", name="echo", arguments={"text": "y"})
    b1 = ToolInvocation(id="c1", name="purge")  # the same id in another member
    events = wire(run_of([
        AssistantTextDelta(agent="a", text="Hello "),
        AssistantTextDelta(agent="b", text="Hi"),
        AssistantTextDelta(agent="a", text="there"),
        ToolCallParsed(agent="a", invocation=a1),
        ToolCallParsed(agent="a", invocation=a2),
        AssistantTextDelta(agent="a", text="after"),
        ApprovalRequested(agent="b", invocation=b1),
        ToolResultReceived(agent="a", result=ToolResult.success(a2, {"n": 1})),
        ToolResultReceived(agent="a", result=ToolResult.success(a1, "<b>x</b>")),
        ApprovalDenied(agent="b", invocation_id="c1", reason="no"),
        ToolResultReceived(agent="b", result=ToolResult.failure(b1, ErrorCode.DENIED,
                                                                "denied: no")),
        LLMResponseCompleted(agent="a", request_no=1),
    ]))
    kinds = [(e.type.value, (e.metadata or {}).get("member")) for e in events]
    assert kinds[0] == ("RUN_STARTED", None) and kinds[-1] == ("RUN_FINISHED", None)
    text = {}
    for event in events:
        if event.type.value == "TEXT_MESSAGE_CONTENT":
            text[event.message_id] = text.get(event.message_id, "") + event.delta
    assert text == {"r1.a.1": "Hello there", "r1.b.1": "Hi", "r1.a.2": "after"}
    numbers = {e.value["tool_call_id"]: (e.value["call_id"], e.value["number"])
               for e in events if e.type.value == "CUSTOM" and e.name == "autobyteus.tool_call"}
    assert numbers == {"a:c1": ("c1", 1), "a:c2": ("c2", 2), "b:c1": ("c1", 1)}
    started = [e.tool_call_id for e in events if e.type.value == "TOOL_CALL_START"]
    assert started == ["a:c1", "a:c2", "b:c1"]  # unique in the stream
    finished = [(e.value["tool_call_id"], e.value["finished"])
                for e in events if e.type.value == "CUSTOM" and e.name == "autobyteus.tool_result"]
    assert finished == [("a:c2", 1), ("a:c1", 2), ("b:c1", 3)]
    results = [e.content for e in events if e.type.value == "TOOL_CALL_RESULT"]
    assert results == ['{"n": 1}', "<b>x</b>", "DENIED: denied: no"]
    args = [e.delta for e in events if e.type.value == "TOOL_CALL_ARGS"]
    assert json.loads(args[0]) == {"text": "<b>x</b>"}
    # a text message closes before a call of its member starts, and every one is closed
    order = [(e.type.value, getattr(e, "message_id", None)) for e in events]
    assert order.index(("TEXT_MESSAGE_END", "r1.a.1")) < next(
        i for i, (kind, _) in enumerate(order) if kind == "TOOL_CALL_START")
    starts = {m for kind, m in order if kind == "TEXT_MESSAGE_START"}
    assert starts == {m for kind, m in order if kind == "TEXT_MESSAGE_END"}


def test_a_result_for_a_call_never_parsed_opens_the_call_first():
    lost = ToolInvocation(id="c9", name="?")
    events = run_of([ToolResultReceived(agent="a", result=ToolResult.failure(
        lost, ErrorCode.PARSE_ERROR, "unreadable"))])
    kinds = [e.type.value for e in events]
    assert kinds[kinds.index("TOOL_CALL_START"):kinds.index("TOOL_CALL_RESULT") + 1] == [
        "TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END", "CUSTOM", "TOOL_CALL_RESULT"]


def test_stopped_and_failed_runs_close_what_is_open():
    run = AguiRun("t", "r", usage)
    run.translate(AssistantTextDelta(agent="a", text="half"))
    stopped = run.stopped()
    assert [e.type.value for e in stopped] == ["TEXT_MESSAGE_END", "RUN_FINISHED"]
    assert stopped[-1].outcome is not None and stopped[-1].outcome.type == "cancelled"
    run.translate(AssistantTextDelta(agent="a", text="again"))
    failed = run.failed("it broke", "AgentTurnError")
    assert [e.type.value for e in failed] == ["TEXT_MESSAGE_END", "RUN_ERROR"]
    assert failed[-1].message == "it broke"


def test_a_members_working_set_is_an_event_of_its_own():
    advised = ToolInvocation(id="c1", name="memory.advise")
    kept = {"hot": [{"path": "notes/a.md", "why": "the plan"}],
            "cold": [{"path": "old.md", "why": "done"}]}
    events = wire(run_of([
        ToolCallParsed(agent="r", invocation=advised),
        ToolResultReceived(agent="r", result=ToolResult(
            invocation_id="c1", tool_name="memory.advise", status="success", content=kept)),
        ToolResultReceived(agent="r", result=ToolResult.failure(  # a failure shows none
            ToolInvocation(id="c2", name="memory.advise"), ErrorCode.INVALID_ARGS,
            "give at least one hot or cold path")),
    ]))
    shown = [e.value for e in events if getattr(e, "name", "") == "autobyteus.working_set"]
    assert shown == [{"member": "r", **kept}]

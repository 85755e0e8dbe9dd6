"""A member called like a tool (``tools: [ask:NAME]``, team/_member_tools.py) on the local
runtime: taught and answered like any tool, a fresh callee per call (parallel calls at once),
its typed answer, loops and depth refused, failures and timeouts as failed results, a stop
that cuts the callee, usage under the callee, approvals of a callee's calls."""

from __future__ import annotations

import asyncio
import json
import threading

import pytest
from pydantic import BaseModel

from autobyteus_like import (
    AgentConfig,
    AgentTeam,
    ConfigError,
    ScriptedLLM,
    TeamConfig,
    ToolContext,
    UsageLimitExceededError,
    tool,
)
from autobyteus_like.events import ApprovalRequested
from autobyteus_like.llm import LLMRequest
from autobyteus_like.team import MemberCallEvent
from autobyteus_like.usage import UsageLimits


def call(name: str, **arguments: object) -> dict:
    return {"name": name, "arguments": arguments}


def calls(*items: dict) -> str:
    return json.dumps(list(items))


def ask(member: str, request: str) -> dict:
    return call(f"ask_{member}", request=request)


def results(request: LLMRequest) -> list:
    """The results the request's last message shows, in the order given."""
    shown = request.messages[-1].content.splitlines()[1:]
    return [json.loads(line)["tool_result"]["content"] for line in shown]


def member(name: str, responses: list, **options) -> AgentConfig:
    options.setdefault("tool_format", "json")
    return AgentConfig(name=name, role=f"the {name}", llm=ScriptedLLM(responses), **options)


def echo_llm(prefix: str, gate: threading.Barrier | None = None) -> ScriptedLLM:
    """A model answering each request with ``prefix`` and the question it was asked; with
    ``gate``, only once every party of it is asking (so calls run at once or never)."""

    def answer(request: LLMRequest) -> str:
        if gate is not None:
            gate.wait(timeout=10)
        return f"{prefix}: {request.messages[-1].content}"

    return ScriptedLLM([answer] * 20)


def test_the_callee_is_taught_by_its_role_and_answers_in_invocation_order():
    lead = member("lead", [calls(ask("researcher", "a?"), call("note", text="x"),
                                 ask("researcher", "b?")), "done"], tools=["ask:researcher",
                                                                           "note"])
    gate = threading.Barrier(2)  # both researcher calls must be asking at once
    researcher = AgentConfig(name="researcher", role="finds facts", llm=echo_llm("found", gate),
                             tool_format="json")

    @tool
    def note(text: str) -> str:
        """Note something."""
        return f"noted {text}"

    config = TeamConfig(name="t", coordinator="lead", members=[lead, researcher])
    with AgentTeam(config, tools=[note]) as team:
        assert team.run("go", timeout=20) == "done"
        usage = team.usage
    taught = lead.llm.requests[0].system_prompt
    assert "ask_researcher" in taught and "finds facts" in taught
    assert results(lead.llm.requests[1]) == ["found: a?", "noted x", "found: b?"]
    assert usage.members["researcher"].llm_calls == 2  # two fresh instances, under the callee


class Verdict(BaseModel):
    ok: bool
    why: str


def test_a_typed_callee_answers_json_to_the_model_and_a_value_to_python():
    lead = member("lead", [calls(ask("judge", "is it?")), "judged"], tools=["ask:judge"])
    judge = member("judge", [json.dumps(call("final_result", ok=True, why="it is"))] * 2,
                   output_type=Verdict)
    with AgentTeam(TeamConfig(name="t", coordinator="lead", members=[lead, judge])) as team:
        assert team.run("go", timeout=20) == "judged"
        ask_judge = team.agents["lead"].tools.get("ask_judge")
        # the same tool called from Python: the typed value itself
        value = ask_judge.run({"request": "and now?"},
                              ToolContext(agent="lead", invocation_id="from_python"))
    assert results(lead.llm.requests[1]) == [{"ok": True, "why": "it is"}]
    assert ask_judge.description.startswith("Ask your teammate judge")
    assert value == Verdict(ok=True, why="it is")


@pytest.mark.parametrize("tools, problem", [
    (["ask:nobody"], "members[0].tools[0]: ask:nobody names no member of the team"),
    (["ask:lead"], "members[0].tools[0]: 'lead' cannot ask itself (ask:lead)"),
])
def test_an_unknown_member_or_itself_is_a_located_error(tools, problem):
    lead = member("lead", [], tools=tools)
    with pytest.raises(ConfigError) as caught:
        TeamConfig.from_data({"name": "t", "coordinator": "lead",
                              "members": [lead.model_dump(exclude={"llm"}) | {"llm": lead.llm}]})
    assert problem in str(caught.value)


def test_a_loop_of_members_is_refused_and_depth_is_limited():
    # a asks b, b asks a: refused (a is answering already); the answers still come
    a = member("a", [calls(ask("b", "go on")), "a done"], tools=["ask:b"])
    b = member("b", [calls(ask("a", "back?")), "b done"], tools=["ask:a"])
    with AgentTeam(TeamConfig(name="t", coordinator="a", members=[a, b])) as team:
        assert team.run("go", timeout=20) == "a done"
    [refused] = results(b.llm.requests[1])
    assert refused["code"] == "PERMISSION_DENIED" and "a -> b -> a" in refused["message"]
    assert results(a.llm.requests[1]) == ["b done"]
    # depth: x -> y -> z allowed with ask_depth 2, but not a third hop
    x = member("x", [calls(ask("y", "1")), "x done"], tools=["ask:y"])
    y = member("y", [calls(ask("z", "2")), "y done"], tools=["ask:z"])
    z = member("z", [calls(ask("w", "3")), "z done"], tools=["ask:w"])
    w = member("w", ["w done"])
    with AgentTeam(TeamConfig(name="t", coordinator="x", members=[x, y, z, w],
                              ask_depth=2)) as team:
        assert team.run("go", timeout=20) == "x done"
    [too_deep] = results(z.llm.requests[1])
    assert too_deep["code"] == "PERMISSION_DENIED" and "ask_depth" in too_deep["message"]
    assert w.llm.requests == []


def test_a_failing_or_slow_callee_is_a_failed_result_never_a_hung_caller():
    lead = member("lead", [calls(ask("broken", "?"), ask("slow", "?")), "coped"],
                  tools=["ask:broken", "ask:slow"], tool_timeout_s=1.0)
    broken = member("broken", [])  # no reply scripted: its turn fails

    @tool
    async def wait_long() -> str:
        """Wait."""
        await asyncio.Event().wait()  # until cancelled: the slow callee is stopped
        return "never"

    slow = member("slow", [calls(call("wait_long"))], tools=["wait_long"])
    config = TeamConfig(name="t", coordinator="lead", members=[lead, broken, slow])
    with AgentTeam(config, tools=[wait_long]) as team:
        assert team.run("go", timeout=20) == "coped"
    failed, timed_out = results(lead.llm.requests[1])
    assert failed["code"] == "TOOL_ERROR" and failed["message"].startswith("broken failed")
    assert timed_out["code"] == "TIMEOUT"


def test_stopping_the_caller_stops_the_callee_and_its_calls_wait_for_approval():
    lead = member("lead", [calls(ask("clerk", "pay it"))], tools=["ask:clerk"])
    ran = []

    @tool(requires_approval=True)
    def pay() -> str:
        """Pay."""
        ran.append(1)
        return "paid"

    clerk = member("clerk", [calls(call("pay")), "paid it"], tools=["pay"])
    config = TeamConfig(name="t", coordinator="lead", members=[lead, clerk])
    team = AgentTeam(config, tools=[pay]).start()
    try:
        events = team.events()
        team.send("go")
        while True:  # the clerk's call waits for a person, nested under the lead's call
            event = events.get(timeout=10)
            if isinstance(event, MemberCallEvent) and isinstance(event.event, ApprovalRequested):
                break
        assert event.agent == "lead" and event.callee == "clerk"
        assert event.member == f"clerk@lead/{event.call_id}"
        live = team.member_calls.instance(event.member)
        assert live is not None and live.running
    finally:
        team.stop()
    assert not live.running and ran == []  # the stop cut the callee; nothing ran unasked


def test_a_callee_answering_in_its_running_conversation_takes_calls_in_order():
    # two calls in one response to a member configured to answer in its running conversation:
    # one after the other, in the order asked, each in the conversation the last one left
    lead = member("lead", [calls(ask("memo", "first"), ask("memo", "second")), "done"],
                  tools=["ask:memo"])
    seen: list[int] = []

    def remember(request: LLMRequest) -> str:
        seen.append(len(request.messages))
        return f"heard {request.messages[-1].content.splitlines()[-1]}"

    memo = member("memo", [remember, remember], ask_conversation="running")
    with AgentTeam(TeamConfig(name="t", coordinator="lead", members=[lead, memo])) as team:
        assert team.run("go", timeout=20) == "done"
    assert results(lead.llm.requests[1]) == ["heard first", "heard second"]
    assert seen == [1, 3]  # the second call saw the first question and its answer


def test_a_loop_through_a_running_conversation_is_refused_not_deadlocked():
    # lead asks hub (running); hub asks lead (running), who is waiting for hub: refused
    lead = member("lead", [calls(ask("hub", "?")), "done"], tools=["ask:hub"],
                  ask_conversation="running")
    hub = member("hub", [calls(ask("lead", "back?")), "hub done"], tools=["ask:lead"],
                 ask_conversation="running")
    with AgentTeam(TeamConfig(name="t", coordinator="lead", members=[lead, hub])) as team:
        assert team.run("go", timeout=20) == "done"
    [refused] = results(hub.llm.requests[1])
    assert refused["code"] == "PERMISSION_DENIED"


def test_the_callees_spans_nest_under_the_callers_tool_span():
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from autobyteus_like.tracing import Tracing
    from tests.tracing.test_spans import tree

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    lead = member("lead", [calls(ask("researcher", "a?")), "done"], tools=["ask:researcher"])
    researcher = member("researcher", ["found"])
    config = TeamConfig(name="t", coordinator="lead", members=[lead, researcher])
    try:
        with AgentTeam(config, tracing=Tracing(provider=provider)) as team:
            assert team.run("go", timeout=20) == "done"
    finally:
        provider.shutdown()
    assert tree(list(exporter.get_finished_spans())) == [
        ("invoke_agent lead", [
            ("chat scripted", []),
            ("execute_tool ask_researcher", [
                ("invoke_agent researcher", [("chat scripted", [])]),
            ]),
            ("chat scripted", []),
        ]),
    ]


def test_a_fresh_callee_spends_the_teams_budget():
    # the team allows 2 LLM requests: the lead's first and the researcher's; the lead's
    # second is refused, so the run ends at the team's limit
    lead = member("lead", [calls(ask("researcher", "a?")), "done"], tools=["ask:researcher"])
    researcher = member("researcher", ["found"])
    config = TeamConfig(name="t", coordinator="lead", members=[lead, researcher],
                        limits=UsageLimits(max_llm_calls=2))
    with AgentTeam(config) as team, pytest.raises(UsageLimitExceededError):
        team.run("go", timeout=20)
    assert len(researcher.llm.requests) == 1 and len(lead.llm.requests) == 1


@pytest.mark.parametrize("tool_format", ["xml", "native"])
def test_the_ask_tool_is_taught_in_the_callers_own_format(tool_format):
    lead = AgentConfig(name="lead", llm=ScriptedLLM(["done"], provider="openai"),
                       tools=["ask:researcher"], tool_format=tool_format)
    researcher = AgentConfig(name="researcher", role="finds facts", llm=ScriptedLLM([]))
    with AgentTeam(TeamConfig(name="t", coordinator="lead", members=[lead, researcher])) as team:
        assert team.run("go", timeout=20) == "done"
    [request] = lead.llm.requests
    if tool_format == "xml":
        assert "ask_researcher" in request.system_prompt
        assert "finds facts" in request.system_prompt and "request" in request.system_prompt
        assert request.tools == ()
    else:
        [taught] = request.tools
        assert taught.name == "ask_researcher" and "finds facts" in taught.description
        assert list(taught.json_schema()["properties"]) == ["request"]


def test_a_fresh_callee_writes_no_mail_it_answers_its_caller():
    lead = member("lead", [calls(ask("helper", "?")), "done"], tools=["ask:helper"])
    helper = member("helper", [calls(call("send_message_to", recipient_name="lead",
                                          content="psst")), "answered"],
                    tools=["send_message_to"])
    with AgentTeam(TeamConfig(name="t", coordinator="lead", members=[lead, helper])) as team:
        events = team.events()
        assert team.run("go", timeout=20) == "done"
        events.close()
    [refused] = results(helper.llm.requests[1])
    assert refused["code"] == "NOT_AVAILABLE" and "answer with your result" in str(refused)
    assert results(lead.llm.requests[1]) == ["answered"]
    delivered = [e for e in events if type(e).__name__ == "MessageDelivered"]
    assert [(e.sender, e.recipient) for e in delivered] == [(None, "lead")]  # the user's only


def test_a_callee_stopped_by_its_own_limit_is_a_failed_result_saying_so():
    lead = member("lead", [calls(ask("spender", "?")), "coped"], tools=["ask:spender"])
    spender = member("spender", [calls(call("send_message_to", recipient_name="x", content="y")),
                                 "never"], tools=["send_message_to"],
                     limits=UsageLimits(max_llm_calls=1))
    with AgentTeam(TeamConfig(name="t", coordinator="lead", members=[lead, spender])) as team:
        assert team.run("go", timeout=20) == "coped"
    [limited] = results(lead.llm.requests[1])
    assert limited["code"] == "LIMIT"
    assert limited["message"].startswith("spender stopped at a limit")

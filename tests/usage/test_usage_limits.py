"""Limits end a run cleanly: the library raises ``UsageLimitExceededError`` naming the limit and
the figure, the call that would cross a limit never runs, every member of a team stops its work,
later messages fail at once, and no thread is left (the autouse fixture)."""

from __future__ import annotations

import json
import threading
import time

import pytest

from autobyteus_like import Agent, AgentConfig, AgentTeam, TeamConfig, tool
from autobyteus_like.agent._subscription import EventSubscription
from autobyteus_like.errors import AutobyteusLikeError, UsageLimitExceededError
from autobyteus_like.events import ToolResultReceived
from autobyteus_like.llm import TokenUsage
from autobyteus_like.tools._context import ToolContext
from autobyteus_like.tools._definition import ToolDefinition
from autobyteus_like.usage import UsageLimitReached, UsageLimits
from tests.usage.metered_llm import MeteredLLM

USAGE = TokenUsage(input_tokens=100, output_tokens=10)


def call(name: str, **arguments: object) -> str:
    return json.dumps({"name": name, "arguments": arguments})


def noting(ran: list[str]) -> ToolDefinition:
    """A ``note`` tool that appends each text it is given to ``ran`` (what really ran)."""

    @tool
    def note(text: str) -> str:
        """Note it.

        Args:
            text: What.
        """
        ran.append(text)
        return "noted"

    return note


def test_max_tool_calls_ends_an_agents_run_before_the_call_that_crosses_it():
    ran: list[str] = []
    note = noting(ran)

    llm = MeteredLLM([call("note", text="1"), call("note", text="2"), "never"], USAGE)
    config = AgentConfig(name="solo", llm=llm, tools=[note], tool_format="json",
                         limits=UsageLimits(max_tool_calls=1))
    with Agent(config) as agent:
        with pytest.raises(UsageLimitExceededError) as caught:
            agent.run("go", timeout=10)
        error = caught.value
        assert isinstance(error, AutobyteusLikeError)
        assert (error.limit, error.allowed, error.figure) == ("max_tool_calls", 1, 2)
        assert str(error) == ("usage limit max_tool_calls=1 of agent 'solo' reached: "
                              "1 made, the next was not; the run was ended")
        assert ran == ["1"]  # the second call never ran
        with pytest.raises(UsageLimitExceededError):  # the run is over: later messages fail
            agent.run("again", timeout=10)
        assert agent.usage.run.tool_calls == 1 and agent.usage.run.llm_calls == 2
    with agent:  # a new run counts from zero
        assert agent.usage.run.tool_calls == 0


def test_max_llm_calls_stops_before_the_request_that_crosses_it():
    llm = MeteredLLM([call("echo_missing"), call("echo_missing"), "never"], USAGE)
    config = AgentConfig(name="solo", llm=llm, tool_format="json",
                         limits=UsageLimits(max_llm_calls=2))
    with Agent(config) as agent:
        events = agent.events()
        with pytest.raises(UsageLimitExceededError, match="max_llm_calls=2"):
            agent.run("go", timeout=10)
        assert len(llm.requests) == 2  # the third request was never sent
    reached = [e for e in iter(lambda: events.get(timeout=5), None)
               if isinstance(e, UsageLimitReached)]
    assert [(e.agent, e.limit) for e in reached] == [("solo", "max_llm_calls")]


def test_a_token_limit_is_checked_as_each_response_arrives():
    llm = MeteredLLM([call("missing"), "never"], USAGE)
    config = AgentConfig(name="solo", llm=llm, tool_format="json",
                         limits=UsageLimits(max_input_tokens=50))
    with Agent(config) as agent, pytest.raises(UsageLimitExceededError) as caught:
        agent.run("go", timeout=10)
    assert (caught.value.limit, caught.value.figure) == ("max_input_tokens", 100)
    assert len(llm.requests) == 1


def test_a_cost_limit_with_an_unknown_price_cannot_be_kept_and_ends_the_run():
    config = AgentConfig(name="solo", llm=MeteredLLM(["hi", "more"], USAGE, model="unpriced"),
                         tool_format="json", limits=UsageLimits(max_cost_usd=1))
    with Agent(config) as agent, pytest.raises(UsageLimitExceededError) as caught:
        agent.run("go", timeout=10)
    assert caught.value.figure == "unknown"
    assert "no price for openai/unpriced; give it under prices:" in str(caught.value)


def test_a_cost_limit_with_a_price_ends_the_run_when_crossed():
    prices = {"p": {"input_per_mtok": 1000, "output_per_mtok": 0}}  # $0.10 a response
    config = AgentConfig(name="solo", llm=MeteredLLM([call("x"), call("x"), "z"], USAGE,
                                                     model="p"),
                         tool_format="json", prices=prices,
                         limits=UsageLimits(max_cost_usd="0.15"))
    with Agent(config) as agent, pytest.raises(UsageLimitExceededError) as caught:
        agent.run("go", timeout=10)
    assert str(caught.value.figure) == "0.2" or caught.value.figure == pytest.approx(0.2)


def test_a_team_limit_stops_every_member_including_one_in_a_slow_tool():
    started, cancelled = threading.Event(), threading.Event()

    @tool
    def slow(context: ToolContext) -> str:
        """Work for a long time (until cancelled)."""
        started.set()
        # CancelFlag has no event to wait on (tools poll it by design): poll with a deadline
        deadline = time.monotonic() + 30
        while not context.cancelled.is_set() and time.monotonic() < deadline:
            time.sleep(0.005)
        if context.cancelled.is_set():
            cancelled.set()
        return "late"

    lead = AgentConfig(name="lead", llm=MeteredLLM(
        [call("send_message_to", recipient_name="coder", content="go slow")
         + call("send_message_to", recipient_name="tester", content="test"), "x", "y"],
        USAGE), tools=["send_message_to"], tool_format="json")
    coder = AgentConfig(name="coder", llm=MeteredLLM([call("slow"), "done"], USAGE),
                        tools=[slow], tool_format="json")

    @tool
    def quick() -> str:
        """Answer at once."""
        return "quick"

    def tester_reply(request: object) -> str:
        assert started.wait(10)  # the coder is inside its slow tool now
        return call("quick") + call("quick") + call("quick")  # the 5th and 6th are refused

    tester = AgentConfig(name="tester", llm=MeteredLLM([tester_reply, "t"], USAGE),
                         tools=[quick], tool_format="json")
    config = TeamConfig(name="t", coordinator="lead", members=[lead, coder, tester],
                        limits=UsageLimits(max_tool_calls=4))
    with AgentTeam(config) as team:
        with pytest.raises(UsageLimitExceededError) as caught:
            team.run("start", timeout=20)
        assert caught.value.scope == "team 't'"
        assert caught.value.limit == "max_tool_calls"
        assert team.usage.run.tool_calls == 4  # 2 sends, slow, one quick: what ran
        assert cancelled.wait(10)  # the coder's running tool was cancelled
        assert team.quiescent
        assert team.usage_limit_error is caught.value
        with pytest.raises(UsageLimitExceededError):
            team.send("more").result(timeout=10)


def test_a_members_own_limit_ends_the_teams_run():
    lead = AgentConfig(name="lead", llm=MeteredLLM(
        [call("send_message_to", recipient_name="coder", content="go"), "x", "y"], USAGE),
        tools=["send_message_to"], tool_format="json")
    coder = AgentConfig(name="coder", llm=MeteredLLM([call("a"), call("b"), "done"], USAGE),
                        tool_format="json", limits=UsageLimits(max_llm_calls=1))
    team = AgentTeam(TeamConfig(name="t", coordinator="lead", members=[lead, coder]))
    with team, pytest.raises(UsageLimitExceededError) as caught:
        team.run("start", timeout=20)
    assert caught.value.scope == "agent 'coder'"
    assert (caught.value.limit, caught.value.figure) == ("max_llm_calls", 2)


def test_limits_reject_nonsense_with_a_clear_error():
    with pytest.raises(ValueError, match="max_tool_calls"):
        UsageLimits(max_tool_calls=-1)
    with pytest.raises(ValueError, match="max_cost_usd"):
        UsageLimits(max_cost_usd="nan")
    with pytest.raises(ValueError, match="max_tokens"):
        UsageLimits.model_validate({"max_tokens": 5})


def _results(events: EventSubscription) -> list[ToolResultReceived]:
    return [e for e in iter(lambda: events.get(timeout=5), None)
            if isinstance(e, ToolResultReceived)]


@pytest.mark.parametrize("execution", ["parallel", "sequential"])
def test_max_tool_calls_runs_exactly_up_to_the_limit_when_one_reply_holds_several_calls(
        execution: str) -> None:
    ran: list[str] = []
    note = noting(ran)

    reply = call("note", text="1") + call("note", text="2") + call("note", text="3")
    llm = MeteredLLM([reply, "never"], USAGE)
    config = AgentConfig(name="solo", llm=llm, tools=[note], tool_format="json",
                         tool_execution=execution, limits=UsageLimits(max_tool_calls=2))
    with Agent(config) as agent:
        events = agent.events()
        with pytest.raises(UsageLimitExceededError) as caught:
            agent.run("go", timeout=10)
        assert sorted(ran) == ["1", "2"]  # the first two, in invocation order; not the third
        assert agent.usage.run.tool_calls == 2 and agent.usage.run.llm_calls == 1
        assert (caught.value.limit, caught.value.allowed) == ("max_tool_calls", 2)
    results = {e.result.invocation_id: e.result for e in _results(events)}
    codes = [None if r.error is None else r.error.code for r in results.values()]
    assert codes.count(None) == 2 and codes.count("LIMIT") == 1  # the model is told why
    limited = next(r for r in results.values() if r.error is not None)
    assert limited.error is not None and "max_tool_calls=2" in limited.error.message


def test_usage_counts_the_llm_requests_made_not_the_one_refused():
    llm = MeteredLLM([call("missing"), call("missing"), "never"], USAGE)
    config = AgentConfig(name="solo", llm=llm, tool_format="json",
                         limits=UsageLimits(max_llm_calls=2))
    with Agent(config) as agent:
        with pytest.raises(UsageLimitExceededError) as caught:
            agent.run("go", timeout=10)
        assert len(llm.requests) == 2
        assert agent.usage.run.llm_calls == 2  # what happened, not what was refused
        assert agent.usage.turns[1].llm_calls == 2
        assert "max_llm_calls=2" in str(caught.value)


def test_calls_refused_before_they_run_do_not_use_up_max_tool_calls():
    ran: list[str] = []
    note = noting(ran)

    replies = [call("missing") + call("note", colour="red"), call("note", text="ok"), "done"]
    config = AgentConfig(name="solo", llm=MeteredLLM(replies, USAGE), tools=[note],
                         tool_format="json", limits=UsageLimits(max_tool_calls=1))
    with Agent(config) as agent:
        assert agent.run("go", timeout=10) == "done"  # the valid call still runs
        assert ran == ["ok"]
        assert agent.usage.run.tool_calls == 1


def test_a_token_limit_over_a_model_that_reports_no_usage_is_warned_and_not_fooled():
    from autobyteus_like import ScriptedLLM

    llm = ScriptedLLM([call("missing"), "never"])
    config = AgentConfig(name="solo", llm=llm, tool_format="json",
                         limits=UsageLimits(max_input_tokens=1000))
    with (pytest.warns(UserWarning, match="reports no token usage"), Agent(config) as agent,
          pytest.raises(UsageLimitExceededError) as caught):
        agent.run("go", timeout=10)  # unknown tokens are not taken for 0
    assert (caught.value.limit, caught.value.figure) == ("max_input_tokens", "unknown")
    assert "1 response(s) reported no token usage" in str(caught.value)
    assert len(llm.requests) == 1

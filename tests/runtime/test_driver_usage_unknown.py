"""On Ray, a run whose responses reported no tokens says "unknown", as its rows and the local
runtime do, never "0 input tokens" (the driver's count keeps which responses reported none)."""

from __future__ import annotations

from autobyteus_like import AgentConfig, ScriptedLLM
from autobyteus_like.events import LLMRequestStarted, LLMResponseCompleted
from autobyteus_like.runtime._ray_usage import DriverUsage
from autobyteus_like.usage._report import TeamUsage


def test_unreported_tokens_are_unknown_on_the_driver():
    team = TeamUsage("t", None)
    usage = DriverUsage(AgentConfig(name="a", llm=ScriptedLLM([])), team)
    usage.see(LLMRequestStarted(agent="a", request_no=1, turn_id=1, iteration=1,
                                message_count=1))
    usage.see(LLMResponseCompleted(agent="a", request_no=1))  # no usage reported
    member = usage.report().run
    assert member.token_figure(member.input_tokens) == "unknown"
    run = team.run.totals
    assert run.token_figure(run.input_tokens) == "unknown" and run.llm_calls == 1
    usage.see(LLMResponseCompleted(agent="a", request_no=2, input_tokens=7, output_tokens=2))
    assert team.run.totals.token_figure(team.run.totals.input_tokens) == "at least 7"

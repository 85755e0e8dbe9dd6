"""Usage summed per turn, agent run, team run and session; cost from the price library, from a
``prices:`` table over it, and "unknown" (never 0) when neither knows the model."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

from autobyteus_like import Agent, AgentConfig, AgentTeam, TeamConfig, tool
from autobyteus_like.llm import TokenUsage
from autobyteus_like.usage import UsageTotals
from tests.usage.metered_llm import MeteredLLM

USAGE = TokenUsage(input_tokens=120, output_tokens=30, reasoning_tokens=5,
                   cached_input_tokens=20)


@tool
def echo(text: str) -> str:
    """Say it back.

    Args:
        text: What to say.
    """
    return text


def call(name: str, **arguments: object) -> str:
    return json.dumps({"name": name, "arguments": arguments})


def agent_config(responses: list[str], model: str = "metered-1", **options: object
                 ) -> AgentConfig:
    return AgentConfig(name="solo", llm=MeteredLLM(responses, USAGE, model=model),
                       tools=[echo], tool_format="json", **options)  # type: ignore[arg-type]


def test_an_agent_sums_its_turns_its_run_and_its_session():
    agent = Agent(agent_config([call("echo", text="a"), "one", "two", "three"]))
    with agent:
        assert agent.run("first", timeout=10) == "one"
        assert agent.run("second", timeout=10) == "two"
        report = agent.usage
    per_response = dict(input_tokens=120, output_tokens=30, cached_input_tokens=20,
                        reasoning_tokens=5)
    assert report.turns == {
        1: UsageTotals(**{k: 2 * v for k, v in per_response.items()}, llm_calls=2,
                       tool_calls=1, cost_usd=None, unpriced=("openai/metered-1",)),
        2: UsageTotals(**per_response, llm_calls=1, cost_usd=None,
                       unpriced=("openai/metered-1",)),
    }
    assert report.run == UsageTotals(**{k: 3 * v for k, v in per_response.items()},
                                     llm_calls=3, tool_calls=1, cost_usd=None,
                                     unpriced=("openai/metered-1",))
    assert report.session == report.run
    with agent:  # a second run: the run starts from zero, the session goes on
        assert agent.run("third", timeout=10) == "three"
        assert agent.usage.run.llm_calls == 1
        assert agent.usage.session.llm_calls == 4
        assert agent.usage.session.input_tokens == 4 * 120


def test_an_unknown_price_is_unknown_never_zero():
    with Agent(agent_config(["hi"], model="no-such-model-anywhere")) as agent:
        agent.run("go", timeout=10)
        totals = agent.usage.run
    assert totals.cost_usd is None
    assert totals.cost_text == "unknown"
    assert totals.unpriced == ("openai/no-such-model-anywhere",)
    assert totals.as_json()["cost_usd"] == "unknown"


def test_cost_comes_from_the_price_library_by_provider_and_model():
    with Agent(agent_config(["hi", "again"], model="gpt-4o-mini")) as agent:
        agent.run("go", timeout=10)
        agent.run("go", timeout=10)
        totals = agent.usage.run
    # genai-prices: gpt-4o-mini at $0.15 in, $0.075 cached in, $0.60 out per million
    one = (Decimal(100) * Decimal("0.15") + Decimal(20) * Decimal("0.075")
           + Decimal(30) * Decimal("0.6")) / 1_000_000
    assert totals.cost_usd == 2 * one
    assert totals.unpriced == ()


def test_a_prices_table_overrides_the_library_and_adds_models(tmp_path: Path):
    (tmp_path / "team.yaml").write_text("""
name: priced
coordinator: lead
prices:
  openai/gpt-4o-mini: {input_per_mtok: 1, output_per_mtok: 2, cached_input_per_mtok: 0.5}
  my-local-model: {input_per_mtok: 0, output_per_mtok: 0}
members:
  - name: lead
    llm: {provider: scripted, responses: ["unused"]}
""")
    config = TeamConfig.from_yaml(tmp_path / "team.yaml")
    lead = config.members[0].model_copy(update={
        "llm": MeteredLLM(["hi"], USAGE, model="gpt-4o-mini"), "tool_format": "json"})
    local = lead.model_copy(update={"name": "local",
                                    "llm": MeteredLLM(["hi"], USAGE, model="my-local-model")})
    team_config = config.model_copy(update={"members": [lead, local]})
    with AgentTeam(team_config) as team:
        assert team.run("go", timeout=10) == "hi"
        team.send("go", to="local").result(timeout=10)
        assert team.wait_quiescent(timeout=10)
        report = team.usage
    override = (Decimal(100) * 1 + Decimal(20) * Decimal("0.5") + Decimal(30) * 2) / 1_000_000
    assert report.members["lead"].cost_usd == override
    assert report.members["local"].cost_usd == Decimal(0)  # free, and known to be
    assert report.run.cost_usd == override
    assert report.run.llm_calls == 2 and report.run.input_tokens == 240
    assert report.as_json()["members"]["lead"]["cost_usd"] == str(override)


def test_a_members_own_prices_win_over_the_teams():
    member = AgentConfig(name="lead", llm=MeteredLLM(["hi"], USAGE, model="m"),
                         tool_format="json",
                         prices={"m": {"input_per_mtok": 10, "output_per_mtok": 0}})
    config = TeamConfig(name="t", coordinator="lead", members=[member],
                        prices={"m": {"input_per_mtok": 1000, "output_per_mtok": 1000}})
    with AgentTeam(config) as team:
        team.run("go", timeout=10)
        assert team.usage.run.cost_usd == Decimal(120 * 10) / 1_000_000


def test_a_team_sums_its_members_into_its_run_and_session():
    lead = AgentConfig(name="lead", llm=MeteredLLM(
        [call("send_message_to", recipient_name="coder", content="do"), "asked", "done"],
        USAGE), tools=["send_message_to"], tool_format="json")
    coder = AgentConfig(name="coder", llm=MeteredLLM(
        [call("send_message_to", recipient_name="lead", content="ok"), "sent"], USAGE),
        tools=["send_message_to"], tool_format="json")
    team = AgentTeam(TeamConfig(name="t", coordinator="lead", members=[lead, coder]))
    with team:
        assert team.run("go", timeout=10) == "done"
        report = team.usage
    assert report.members["lead"].llm_calls == 3 and report.members["coder"].llm_calls == 2
    assert report.run.llm_calls == 5 and report.run.tool_calls == 2
    assert report.run.input_tokens == 5 * 120 and report.run.output_tokens == 5 * 30
    assert report.session == report.run


def test_usage_a_model_does_not_report_stays_unknown_never_0():
    from autobyteus_like import ScriptedLLM
    from autobyteus_like.events import LLMResponseCompleted

    config = AgentConfig(name="solo", llm=ScriptedLLM(["hi"]), tool_format="json")
    with Agent(config) as agent:
        events = agent.events()
        assert agent.run("go", timeout=10) == "hi"
        run = agent.usage.run
    completed = [e for e in iter(lambda: events.get(timeout=5), None)
                 if isinstance(e, LLMResponseCompleted)]
    assert [(e.input_tokens, e.output_tokens) for e in completed] == [(None, None)]
    assert run.unreported == 1 and not run.tokens_known
    data = run.as_json()
    assert (data["input_tokens"], data["output_tokens"]) == ("unknown", "unknown")
    assert data["unreported_responses"] == 1


def test_a_sum_with_an_unreported_part_is_at_least_what_was_reported():
    from autobyteus_like.usage._totals import Tally

    tally = Tally()
    tally.add_response(120, 30, 0, 0, None, "openai/m", reported=True)
    tally.add_response(0, 0, 0, 0, None, "other/x", reported=False)
    totals = tally.snapshot()
    assert totals.input_tokens == 120 and totals.unreported == 1  # the known part, kept
    assert totals.as_json()["input_tokens"] == "at least 120"
    assert totals.token_figure(totals.output_tokens) == "at least 30"
    merged = Tally()
    merged.merge(tally)
    assert merged.snapshot() == totals  # a session's sum keeps the unknown part

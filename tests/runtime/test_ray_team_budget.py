"""A team's limits on Ray, kept exactly while members on several hosts race for the last
calls: calls are granted to hosts in blocks (no round trip per call), yet a limit of N never
lets N+1 calls run, and all N are claimed whichever host asks last (the keeper takes back
what hosts hold unused before it refuses), as locally."""

from __future__ import annotations

from pathlib import Path

import pytest

from autobyteus_like import AgentTeam, UsageLimitExceededError, UsageLimits, tool
from autobyteus_like.events import ToolResultReceived
from tests.runtime.scripted_teams import call, calls, member, ray_runtime, team_config, until_quiet
from tests.stress_rounds import in_the_deep_run

RUNS = Path("/nonexistent")
"""Where ``note`` records each run (set per test; travels with the tool by value)."""

WORKERS = 6


@tool
def note(text: str) -> str:
    """Take a note."""
    with open(RUNS / "notes", "a") as runs:
        runs.write(f"{text}\n")
    return text


@pytest.fixture
def runs(tmp_path):
    global RUNS
    RUNS = tmp_path
    return tmp_path


def racing_team(limits: UsageLimits, rounds: int):
    """A lead that sets ``WORKERS`` workers going at once (two to a host: three hosts and
    the lead's), each asking for three notes at a time, ``rounds`` times."""
    lead = member("lead", [calls(*(call("send_message_to", recipient_name=f"w{i}",
                                        content="go") for i in range(WORKERS))),
                           "set them going", *["heard back"] * WORKERS],
                  tools=["send_message_to"])
    workers = [member(f"w{i}", [*[calls(*(call("note", text=f"w{i}") for _ in range(3)))
                                  for _ in range(rounds)], "done"], tools=["note"])
               for i in range(WORKERS)]
    return team_config(lead, *workers, limits=limits)


@pytest.mark.parametrize("limit", [pytest.param(10, marks=in_the_deep_run(
    "the limit of 40 (the same keeper, its grants in blocks and taken back)")), 40])
def test_a_tool_call_limit_of_n_runs_exactly_n_calls_across_racing_hosts(ray_cluster, runs,
                                                                         limit):
    """10: granted a call at a time; 40: in blocks (and taken back near the end). The lead's
    six messages are tool calls too; then the workers ask for 6 x 3 x 4 = 72 at once."""
    config = racing_team(UsageLimits(max_tool_calls=limit), rounds=4)
    with AgentTeam(config, tools=[note], runtime=ray_runtime("ray-packed")) as team:
        assert len({agent.actor_name for agent in team.agents.values()}) == 4
        events = team.events()
        with pytest.raises(UsageLimitExceededError, match=f"max_tool_calls={limit} of team"):
            team.run("go", timeout=120)
        seen = until_quiet(events)
        claimed = team.usage.run.tool_calls
    results = [e.result for e in seen if isinstance(e, ToolResultReceived)]
    sent = [r for r in results if r.tool_name == "send_message_to" and r.error is None]
    refused = [r for r in results if r.error is not None and r.error.code == "LIMIT"]
    notes = (runs / "notes").read_text().split() if (runs / "notes").exists() else []
    # as locally: all N calls claimed (none left unused in a host), never one more; of
    # those claimed, the ones a refusal in their own batch ended never ran
    assert claimed == limit
    assert len(sent) + len(notes) <= limit
    assert refused


@in_the_deep_run("the tool-call limit across racing hosts (the same keeper of the team's "
                 "budget); an LLM-call limit: its local tests")
def test_an_llm_call_limit_holds_across_racing_hosts(ray_cluster, runs):
    config = racing_team(UsageLimits(max_llm_calls=20), rounds=4)
    with AgentTeam(config, tools=[note], runtime=ray_runtime("ray-packed")) as team:
        with pytest.raises(UsageLimitExceededError, match="max_llm_calls=20 of team"):
            team.run("go", timeout=120)
        asked = sum(len(agent.fetch_llm().requests) for agent in team.agents.values())
    assert asked == 20


def test_a_token_limit_ends_the_run_for_every_host_at_its_first_response(ray_cluster):
    """Tokens are added at the keeper as each response arrives: a scripted model reports
    none, so a token limit cannot be kept and the first response ends the run (as locally);
    the teammate in another host is never asked."""
    lead = member("lead", [call("send_message_to", recipient_name="worker", content="go"),
                           "never"])
    worker = member("worker", ["never"], tools=[])
    config = team_config(lead, worker, limits=UsageLimits(max_output_tokens=1000))
    with AgentTeam(config, runtime=ray_runtime("ray")) as team:  # (the warning: in the host)
        with pytest.raises(UsageLimitExceededError, match="max_output_tokens=1000 of team"):
            team.run("go", timeout=60)
        assert team.agents["worker"].fetch_llm().requests == []

"""Usage on the Ray backend: counted on the driver from the events the actors stream, so the
team's figures match what ran; limits, which the actors cannot share, are refused when the
config is loaded."""

from __future__ import annotations

import pytest
import yaml

from autobyteus_like import AgentTeam, ConfigError, TeamConfig
from autobyteus_like.cli import main
from tests.runtime.helpers import RAY_KINDS, call, member, ray_runtime, team_config, until_quiet


@pytest.mark.parametrize("kind", RAY_KINDS)
def test_the_team_s_usage_is_gathered_on_the_driver(ray_cluster, kind):
    lead = member("lead", [call("send_message_to", recipient_name="helper", content="hi"),
                           "asked", "never used"])
    helper = member("helper", ["ok"], tools=[])
    with AgentTeam(team_config(lead, helper), runtime=ray_runtime(kind)) as team:
        events = team.events()
        team.send("go")
        until_quiet(events)
        usage = team.usage
    assert (usage.run.llm_calls, usage.run.tool_calls) == (3, 1)  # lead 2, helper 1
    assert usage.members["lead"].llm_calls == 2 and usage.members["helper"].llm_calls == 1
    assert usage.run.cost_text == "unknown"  # a scripted model has no price, never $0


def ray_team(limits: dict | None = None, member_limits: dict | None = None) -> dict:
    lead = {"name": "lead", "llm": {"provider": "scripted", "responses": ["hi"]}}
    if member_limits:
        lead["limits"] = member_limits
    team = {"name": "t", "coordinator": "lead", "runtime": {"backend": "ray"}, "members": [lead]}
    if limits:
        team["limits"] = limits
    return team


@pytest.mark.parametrize(("limits", "member_limits", "named"), [
    ({"max_tool_calls": 3}, None, "limits"),
    (None, {"max_llm_calls": 2}, "members[0].limits"),
])
def test_limits_on_ray_are_refused_when_the_config_is_loaded(limits, member_limits, named,
                                                             tmp_path, capsys):
    with pytest.raises(ConfigError) as refused:
        TeamConfig.from_data(ray_team(limits, member_limits))
    assert f"the ray backend does not enforce usage limits yet ({named})" in str(refused.value)
    path = tmp_path / "team.yaml"
    path.write_text(yaml.safe_dump(ray_team(limits, member_limits)))
    assert main(["validate", str(path)]) == 2
    assert "does not enforce usage limits" in capsys.readouterr().err

"""Usage on the Ray backend: limits are taken when the config is loaded. (That the team's
figures match what ran, counted on the driver from the events the hosts stream, is checked
on every runtime in test_member_surface.py.)"""

from __future__ import annotations

import pytest
import yaml

from autobyteus_like import TeamConfig, UsageLimits
from autobyteus_like.cli._main import main


def ray_team(limits: dict | None = None, member_limits: dict | None = None) -> dict:
    lead = {"name": "lead", "llm": {"provider": "scripted", "responses": ["hi"]}}
    if member_limits:
        lead["limits"] = member_limits
    team = {"name": "t", "coordinator": "lead", "runtime": {"backend": "ray"}, "members": [lead]}
    if limits:
        team["limits"] = limits
    return team


@pytest.mark.parametrize(("limits", "member_limits"), [
    ({"max_tool_calls": 3}, None),
    (None, {"max_llm_calls": 2}),
])
def test_limits_on_ray_are_taken_when_the_config_is_loaded(limits, member_limits, tmp_path):
    """The team's limits are kept for every host in one place (ray_team_budget.py), a
    member's in its own process: both load (test_member_surface.py checks they hold)."""
    config = TeamConfig.from_data(ray_team(limits, member_limits))
    assert config.limits == (None if limits is None else UsageLimits(**limits))
    path = tmp_path / "team.yaml"
    path.write_text(yaml.safe_dump(ray_team(limits, member_limits)))
    assert main(["validate", str(path)]) == 0

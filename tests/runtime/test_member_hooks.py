"""A member's own hooks on every runtime (local and Ray): a hook that raises fails that turn
with an error naming the hook and the point, the run does not hang, and the member takes the
next message."""

from __future__ import annotations

import pytest

from autobyteus_like import AgentHooks, AgentTeam, AgentTurnError, tool
from tests.runtime.scripted_teams import call, member, on_local_and
from tests.runtime.test_member_surface import runtime, team_config  # noqa: F401 (fixture)


class FailsOnce(AgentHooks):
    """Raises the first time a call is about to run (on the member's own process)."""

    def __init__(self) -> None:
        self.failed = False

    def call_running(self, turn: object, call: object) -> None:
        if not self.failed:
            self.failed = True
            raise RuntimeError("the audit log is unreachable")


@tool
def note(text: str) -> str:
    """Take a note."""
    return "noted " + text


@on_local_and("ray-packed", "none needed (the hook runs beside its member, in the "
               "member's process on either runtime)")
def test_a_member_hook_that_raises_names_itself_and_the_member_goes_on(runtime):  # noqa: F811
    lead = member("lead", [call("note", text="a"), call("note", text="b"), "noted it"],
                  tools=["note"], hooks=[FailsOnce()])
    with AgentTeam(team_config(lead, runtime), tools=[note], runtime=runtime) as team:
        with pytest.raises(AgentTurnError) as failed:
            team.run("first", timeout=60)
        assert "the hook FailsOnce.call_running raised RuntimeError: the audit log is " \
               "unreachable" in str(failed.value)
        assert team.run("second", timeout=60) == "noted it"

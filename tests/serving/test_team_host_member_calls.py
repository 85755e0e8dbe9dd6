"""A served team's approval policy decides a callee's calls too (a member asked as a tool,
``ask:NAME``): its waiting call reaches the policy under the callee's address."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from autobyteus_like.serving import ApprovalPolicy
from autobyteus_like.serving._team_host import TeamHost
from tests.runtime.scripted_teams import call, calls, member, team_config
from tests.serving.team_tools import purge


@pytest.mark.parametrize("approved", [["purge"], []])
def test_the_policy_decides_a_callees_call(approved: list[str], tmp_path: Path):
    marker = tmp_path / "marker"
    lead = member("lead", [calls(call("ask_clerk", request="purge it")), "Done."],
                  tools=["ask:clerk"])
    clerk = member("clerk", [call("purge", marker=str(marker)), "Answered."], tools=["purge"],
                   approval_policy="marked")
    host = TeamHost(team_config(lead, clerk), tools=[purge], policy=ApprovalPolicy(approved))

    async def report(event: object) -> None:
        return None

    host.start()
    try:
        assert anyio.run(lambda: host.ask("go", None, report)) == "Done."
    finally:
        host.stop()
    assert marker.exists() == bool(approved)  # run when the policy allows it, else never
    shown = clerk.llm.requests[1].messages[-1].content
    assert ("purged" in shown) if approved else ("DENIED" in shown)

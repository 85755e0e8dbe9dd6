"""A failed ask names its agent once (``agent 'lead': the LLM call failed ...``), not twice as
serve-mcp used to say it."""

from __future__ import annotations

import anyio
import pytest

from autobyteus_like import AgentTurnError
from autobyteus_like.events import AgentEvent
from autobyteus_like.serving._team_host import TeamHost
from tests.runtime.scripted_teams import member, team_config


async def _ignore(event: AgentEvent) -> None:
    return None


def test_a_failed_ask_names_its_agent_once():
    host = TeamHost(team_config(member("lead", [], tools=[])))
    host.start()
    try:
        with pytest.raises(AgentTurnError) as raised:
            anyio.run(host.ask, "go", None, _ignore)
    finally:
        host.stop()
    text = str(raised.value)
    assert text.startswith("agent 'lead': the LLM call failed") and text.count("agent 'lead'") == 1

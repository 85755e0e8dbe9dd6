"""Every recorded provider stream (``shared/realwire``) replayed from a real local server into
an agent on the provider's official SDK: ``agent.usage`` gives exactly the usage the recording
states (read from its bytes by ``tests/llm/realwire.py``, no SDK). Skipped without the
recordings."""

from __future__ import annotations

import pytest

from autobyteus_like import Agent, AgentConfig
from tests.llm.realwire import Fixture, expected, fixtures, realwire_dir
from tests.llm.realwire_clients import declared, provider_llm
from tests.llm.replay_server import Recorded, ReplayServer

ROOT = realwire_dir()
pytestmark = pytest.mark.skipif(
    ROOT is None, reason="the recorded traffic (shared/realwire next to the repository, or "
                         "$AUTOBYTEUS_REALWIRE) is not here")
WITH_USAGE = [fixture for fixture in (fixtures(ROOT) if ROOT is not None else [])
              if not expected(fixture).failed and expected(fixture).usage is not None]


def test_most_recordings_state_usage():
    assert len(WITH_USAGE) >= 20


@pytest.mark.parametrize("fixture", WITH_USAGE, ids=lambda f: f.name)
def test_agent_usage_is_what_the_recording_states(fixture: Fixture):
    want = expected(fixture).usage
    assert want is not None
    reply = Recorded(fixture.raw, fixture.entry["status"], fixture.entry["content_type"],
                     fixture.headers)
    with ReplayServer([reply]) as server:
        # one LLM request: a response with tool calls ends the turn at max_iterations
        config = AgentConfig(name="replayed", llm=provider_llm(fixture.provider, server),
                             tools=list(declared(fixture.pinned_tools or [])), max_iterations=1)
        with Agent(config) as agent:
            outcome = agent.send("hi").exception(timeout=30)
            assert outcome is None or "max_iterations" in str(outcome), outcome
            totals = agent.usage.run
    assert (totals.input_tokens, totals.output_tokens) == (want.input_tokens,
                                                           want.output_tokens)
    assert totals.cached_input_tokens == (want.cached_input_tokens or 0)
    assert totals.reasoning_tokens == (want.reasoning_tokens or 0)
    assert totals.llm_calls == 1
    assert totals.unpriced == ((f"{fixture.provider}/recorded",)  # no list price for it
                               if totals.cost_usd is None else ())

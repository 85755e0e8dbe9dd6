"""A provider's failure ends the turn with the LLMError's message, not an SDK's class name."""

from __future__ import annotations

import pytest

from autobyteus_like import Agent, AgentConfig, AgentTurnError
from autobyteus_like.events import LLMRequestFailed
from tests.llm.provider_helpers import PROVIDERS, add
from tests.llm.replay_server import Failure, ReplayServer

MISSING = Failure(404, {"error": {"message": "The model `gpt-5.2-proo` does not exist or you "
                                             "do not have access to it.",
                                  "type": "invalid_request_error", "code": "model_not_found"}})


def test_the_worker_reports_an_llm_error_a_person_can_act_on():
    with ReplayServer([MISSING]) as server:
        llm = PROVIDERS["openai"](server)
        with Agent(AgentConfig(name="a", llm=llm, tools=[add])) as agent:
            events = agent.events()
            with pytest.raises(AgentTurnError) as failed:
                agent.run("hi", timeout=20)
            events.close()
    [event] = [e for e in events if isinstance(e, LLMRequestFailed)]
    assert event.error_type == "LLMError"
    assert event.error == ("openai gpt-4o-mini: HTTP 404 not found (check the model name and "
                           "base_url): The model `gpt-5.2-proo` does not exist or you do not "
                           "have access to it.")
    assert str(failed.value) == f"agent 'a': the LLM call failed: LLMError: {event.error}"

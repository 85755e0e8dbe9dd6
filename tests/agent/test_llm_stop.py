"""Stopping an agent whose provider accepted the request and never answers is prompt: the
request is cut while it waits for response headers, nothing is retried, no thread is left."""

from __future__ import annotations

import time

import pytest

from autobyteus_like import Agent, AgentConfig, AgentStoppedError
from tests.llm.provider_helpers import PROVIDERS, add
from tests.llm.replay_server import Hang, ReplayServer


@pytest.mark.parametrize("provider", PROVIDERS)
def test_stop_cuts_a_request_the_provider_never_answers(provider: str):
    with ReplayServer([Hang(), Hang()]) as server:
        llm = PROVIDERS[provider](server, timeout_s=30.0, max_retries=3)
        agent = Agent(AgentConfig(name="waiting", llm=llm, tools=[add],
                                  tool_format="native")).start()
        reply = agent.send("add 2 and 40")
        assert server.arrived.acquire(timeout=60)
        started = time.perf_counter()
        agent.stop()  # joins the agent's threads (the LLM worker's included)
        took = time.perf_counter() - started
        with pytest.raises(AgentStoppedError):
            reply.result(timeout=1)
        requests = len(server.requests)
    # prompt: milliseconds quiet, seconds under load; not the 30 s request timeout
    assert took < 10.0, f"stop took {took:.2f} s"
    assert requests == 1

"""``history_json()`` / ``history_from_json``: any text round-trips exactly, a lone surrogate
(from a person's or a model's text) included, as the session store keeps it."""

from __future__ import annotations

import json

import pytest

from autobyteus_like import Agent, AgentConfig, ScriptedLLM
from autobyteus_like.errors import ConfigError
from autobyteus_like.history._messages import history_from_json

LONE = "half an emoji \ud83d, a low one \udfff and é"


def test_an_agent_s_history_with_lone_surrogates_round_trips_exactly():
    config = AgentConfig(name="a", llm=ScriptedLLM([f"you said: {LONE}"]))
    with Agent(config) as agent:
        agent.run(LONE, timeout=10)
        saved = agent.history_json()
        history = agent.history
    assert history_from_json(saved) == history
    assert history_from_json(saved.encode()) == history
    texts = [message.content for message in history_from_json(saved)]
    assert LONE in texts and f"you said: {LONE}" in texts
    seeded = AgentConfig(name="b", llm=ScriptedLLM(["again"]), history=history_from_json(saved))
    with Agent(seeded) as agent:
        assert [m.content for m in agent.history][1:] == [m.content for m in history][1:]


def test_plain_history_is_written_as_before_and_bad_json_is_still_refused():
    config = AgentConfig(name="a", llm=ScriptedLLM(["plain é"]))
    with Agent(config) as agent:
        agent.run("hi", timeout=10)
        saved = agent.history_json()
    assert "é" in saved  # UTF-8 stays readable where it can be
    assert json.loads(saved)[1]["content"] == "hi"
    with pytest.raises(ConfigError, match="history"):
        history_from_json('[{"role": "user", "content": "\\ud800"')  # cut off
    with pytest.raises(ConfigError, match="history"):
        history_from_json('[{"role": "nobody", "content": "\\ud800"}]')

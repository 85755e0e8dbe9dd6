"""A ScriptedLLM given to an agent seeded with a history starts at its first reply; only an
agent restoring its own session goes on after the replies the session already holds."""

from __future__ import annotations

import pytest

from autobyteus_like import Agent, AgentConfig, ScriptedLLM
from autobyteus_like.errors import AgentTurnError
from autobyteus_like.history import AssistantMessage, UserMessage
from autobyteus_like.store import Session

HISTORY = [UserMessage(content="hi"), AssistantMessage(content="hello"),
           UserMessage(content="how are you"), AssistantMessage(content="fine")]


def test_a_seeded_agent_starts_at_the_first_reply():
    llm = ScriptedLLM(["the only reply"])
    with Agent(AgentConfig(name="a", llm=llm, history=HISTORY)) as agent:
        assert agent.run("and now?", timeout=10) == "the only reply"
    assert len(llm.requests[0].messages) == 5  # the history was sent


def test_run_with_a_history_starts_at_the_first_reply():
    llm = ScriptedLLM(["the only reply"])
    with Agent(AgentConfig(name="a", llm=llm)) as agent:
        assert agent.run("and now?", timeout=10, history=HISTORY) == "the only reply"


def test_a_restored_session_goes_on_after_its_replies(tmp_path):
    store = str(tmp_path / "s.db")
    with Session("s", store) as session, Agent(
            AgentConfig(name="a", llm=ScriptedLLM(["one"])), session=session) as agent:
        assert agent.run("first", timeout=10) == "one"
    llm = ScriptedLLM(["one", "two"])  # a new process, the same script
    with Session("s", store) as session, Agent(
            AgentConfig(name="a", llm=llm), session=session) as agent:
        assert agent.run("second", timeout=10) == "two"
    llm = ScriptedLLM(["one"])
    with Session("s", store) as session, Agent(AgentConfig(name="a", llm=llm),
                                               session=session) as agent, \
            pytest.raises(AgentTurnError) as raised:  # the script ran out: it says why
        agent.run("third", timeout=10)
    assert ("all 1 scripted responses were used (it skipped 2: session 's' was restored with "
            "2 replies in its history)") in str(raised.value)

"""An empty reply (no text, no call) is not an answer: the model is asked again once with a
nudge it reads (configurable), then the turn fails saying the model returned nothing; the
command line exits 1."""

from __future__ import annotations

import pytest
import yaml

from autobyteus_like import Agent, AgentConfig, ScriptedLLM
from autobyteus_like.cli._main import main
from autobyteus_like.errors import AgentTurnError
from autobyteus_like.llm._scripted import ScriptedReply


def test_an_empty_reply_is_asked_again_once_with_the_nudge():
    llm = ScriptedLLM(["", "Paris."])
    with Agent(AgentConfig(name="a", llm=llm, empty_reply_nudge="Say something.")) as agent:
        assert agent.run("capital?", timeout=10) == "Paris."
    assert llm.requests[1].messages[-1].content == "Say something."


@pytest.mark.parametrize("empty", ["", "  \n", ScriptedReply("")])
def test_two_empty_replies_fail_the_turn(empty):
    llm = ScriptedLLM([empty, empty])
    with Agent(AgentConfig(name="a", llm=llm)) as agent, \
            pytest.raises(AgentTurnError, match="the model returned nothing"):
        agent.run("capital?", timeout=10)
    assert "Your reply was empty" in llm.requests[1].messages[-1].content


def test_the_cli_exits_1(tmp_path, capsys):
    team = tmp_path / "team.yaml"
    team.write_text(yaml.safe_dump({"name": "t", "coordinator": "a", "members": [
        {"name": "a", "llm": {"provider": "scripted", "responses": ["", ""]}}]}))
    assert main(["run", str(team), "-m", "hi"]) == 1
    assert "the model returned nothing" in capsys.readouterr().err

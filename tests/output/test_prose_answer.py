"""A typed agent answered in prose: the error says the model did not call ``final_result``
and answered in prose (not "the answer is not a JSON object")."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from autobyteus_like import Agent, AgentConfig, ScriptedLLM
from autobyteus_like.errors import OutputValidationError


class Verdict(BaseModel):
    ok: bool


def test_a_prose_answer_is_said_to_be_prose():
    llm = ScriptedLLM(["It looks fine to me.", "Yes, fine.", "Definitely fine."])
    config = AgentConfig(name="judge", llm=llm, tool_format="json", output_type=Verdict)
    with Agent(config) as agent, pytest.raises(OutputValidationError) as raised:
        agent.run("ok?", timeout=10)
    assert raised.value.problems == [
        "the model did not call final_result and answered in prose, not JSON"]
    assert ("Your answer was not accepted: the model did not call final_result and answered "
            "in prose, not JSON. Give your final answer by calling the final_result tool"
            ) in llm.requests[1].messages[-1].content


def test_json_that_is_not_an_object():
    llm = ScriptedLLM(["[1, 2]", "[1, 2]", "[1, 2]"])
    config = AgentConfig(name="judge", llm=llm, tool_format="json", output_type=Verdict)
    with Agent(config) as agent, pytest.raises(OutputValidationError) as raised:
        agent.run("ok?", timeout=10)
    assert raised.value.problems == [
        "the model did not call final_result and answered with JSON that is not an object"]

"""A typed agent's text-format rules say to finish with ``final_result`` only, never both
"answer without a call when you are done" and "do not write the answer as plain text"."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from autobyteus_like import Agent, AgentConfig, ScriptedLLM, tool
from autobyteus_like.formats import formatter_for


class Verdict(BaseModel):
    ok: bool


@tool
def note(text: str) -> str:
    """Note something."""
    return text


@pytest.mark.parametrize("fmt", ["xml", "json", "openai", "gemini", "execute", "tool_call"])
def test_a_typed_agent_is_told_to_finish_with_final_result_only(fmt):
    done_rule = formatter_for(fmt).done_rule
    assert done_rule
    typed = Agent(AgentConfig(name="a", llm=ScriptedLLM([]), tool_format=fmt,
                              output_type=Verdict))
    assert done_rule not in typed.system_prompt
    assert "give your final answer by calling the final_result tool; never write the answer " \
           "as plain text" in typed.system_prompt.lower()
    plain = Agent(AgentConfig(name="a", llm=ScriptedLLM([]), tool_format=fmt, tools=[note]))
    assert done_rule in plain.system_prompt and "final_result" not in plain.system_prompt

"""What the agents of one config share: the rendered system prompt and the format."""

from __future__ import annotations

import gc

from autobyteus_like import Agent, AgentConfig, ScriptedLLM, ToolRegistry, tool
from autobyteus_like.agent import _config_entries


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@tool
def negate(a: int) -> int:
    """Negate a number."""
    return -a


def _config(**extra: object) -> AgentConfig:
    return AgentConfig(name="calc", llm=ScriptedLLM(["done"]), tools=[add], tool_format="xml",
                       **extra)  # type: ignore[arg-type]


def test_agents_of_one_config_share_one_rendered_prompt() -> None:
    config = _config()
    first, second = Agent(config), Agent(config)
    assert first.system_prompt is second.system_prompt  # rendered once, not per agent
    assert first.format is second.format
    assert "add" in first.system_prompt
    assert Agent(_config()).system_prompt == first.system_prompt  # same text, another config


def test_another_tool_set_or_rule_gets_its_own_prompt() -> None:
    config = AgentConfig(name="calc", llm=ScriptedLLM(["done"]), tools=["add"],
                         tool_format="xml")
    only_add = Agent(config, tools=ToolRegistry([add]))
    both = Agent(config, tools=ToolRegistry([add, negate]))  # the name resolves alike
    assert only_add.system_prompt == both.system_prompt
    why = Agent(_config(require_why=True)).system_prompt
    assert "`why`" in why and "`why`" not in only_add.system_prompt


def test_a_prompt_set_by_hand_is_kept_and_used() -> None:
    agent = Agent(_config())
    agent.system_prompt = "Only this."
    with agent:
        agent.run("hi", timeout=10)
        assert agent.history[0].content == "Only this."  # type: ignore[union-attr]


def test_a_dropped_config_takes_its_entry_with_it() -> None:
    config = _config()
    assert Agent(config).system_prompt
    key = id(config)
    assert key in _config_entries._derived
    del config
    gc.collect()
    assert key not in _config_entries._derived

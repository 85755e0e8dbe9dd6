"""What the assembly and the config share between agents and runs: the handler registry per
config, a described model's spec per description, the answer's spec with a config's copies."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from autobyteus_like import Agent, AgentConfig, ScriptedLLM
from autobyteus_like.agent import _config_entries
from autobyteus_like.agent._assembly import config_handlers
from autobyteus_like.errors import AutobyteusLikeError
from autobyteus_like.events import UserMessageReceived


class Verdict(BaseModel):
    ok: bool


def test_the_agents_of_one_config_share_its_handler_registry() -> None:
    config = AgentConfig(name="a", llm=ScriptedLLM(["one", "two"]))
    with Agent(config) as first, Agent(config) as second:
        assert first.run("hi", timeout=10) == "one"
        assert second.run("hi", timeout=10) == "two"  # one scripted model, shared
    shared = _config_entries.shared(config, "handlers", config_handlers)
    assert _config_entries.shared(config, "handlers", config_handlers) is shared
    assert shared.find(UserMessageReceived) is not None


def test_configs_of_one_described_model_share_its_spec_and_another_gets_its_own() -> None:
    data = {"provider": "openai", "model": "gpt-4o"}
    first = AgentConfig(name="a", llm=dict(data))
    second = AgentConfig(name="b", llm=dict(data))
    other = AgentConfig(name="c", llm={"provider": "openai", "model": "gpt-4o-mini"})
    assert first.llm is second.llm  # validated once: a spec is frozen
    assert other.llm is not first.llm and other.llm.model == "gpt-4o-mini"  # type: ignore[union-attr]
    with pytest.raises(AutobyteusLikeError, match="provider"):
        AgentConfig(name="d", llm={"provider": "nobody", "model": "x"})


def test_a_copy_of_a_typed_config_keeps_its_answer_spec_and_an_untyped_one_has_none() -> None:
    typed = AgentConfig(name="a", llm={"provider": "openai", "model": "gpt-4o"},
                        output_type=Verdict)
    spec = typed.output_spec()
    assert spec is not None and typed.model_copy(update={"role": "judge"}).output_spec() is spec
    plain = AgentConfig(name="b", llm={"provider": "openai", "model": "gpt-4o"})
    assert plain.output_spec() is None and plain.__pydantic_private__ is None


def test_a_typed_agent_answers_with_its_type_through_the_assembly() -> None:
    config = AgentConfig(name="a", llm=ScriptedLLM(
        ['{"name": "final_result", "arguments": {"ok": true}}']), tool_format="json",
        output_type=Verdict)
    with Agent(config) as agent:
        assert agent.run("judge", timeout=10) == Verdict(ok=True)

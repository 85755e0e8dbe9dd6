"""LLMSpec (an LLM as YAML data) builds each provider with the settings it was given."""

import pytest

from autobyteus_like.llm import ScriptedLLM
from autobyteus_like.llm._anthropic import AnthropicLLM
from autobyteus_like.llm._gemini import GeminiLLM
from autobyteus_like.llm._openai import OpenAILLM
from autobyteus_like.llm._spec import LLMSpec


def test_each_provider_gets_its_settings(monkeypatch):
    monkeypatch.setenv("MY_KEY", "k")
    common = {"api_key_env": "MY_KEY", "temperature": 0.3, "max_tokens": 77}
    claude = LLMSpec(provider="anthropic", model="claude-sonnet-5", **common).build()
    assert isinstance(claude, AnthropicLLM)
    assert claude._options == {"max_tokens": 77, "temperature": 0.3}
    gemini = LLMSpec(provider="gemini", model="gemini-2.5-flash", **common).build()
    assert isinstance(gemini, GeminiLLM)
    assert gemini._generation == {"temperature": 0.3, "max_output_tokens": 77}
    local = LLMSpec(provider="ollama", model="llama3.1", base_url="http://127.0.0.1:1/v1",
                    **common).build()
    assert isinstance(local, OpenAILLM) and local.base_url == "http://127.0.0.1:1/v1"
    assert local._options == {"temperature": 0.3, "max_tokens": 77}
    assert isinstance(LLMSpec(provider="scripted", responses=["x"]).build(), ScriptedLLM)


def test_a_real_provider_needs_a_model():
    with pytest.raises(ValueError, match="provider 'gemini' needs a model name"):
        LLMSpec(provider="gemini")


def test_scripted_replies_in_yaml_may_report_token_usage():
    from autobyteus_like import Agent, AgentConfig

    spec = LLMSpec.model_validate({"provider": "scripted", "responses": [
        {"text": "counted", "input_tokens": 120, "output_tokens": 7}, "plain"]})
    config = AgentConfig(name="a", llm=spec)
    with Agent(config) as agent:
        assert agent.run("one", timeout=10) == "counted"
        assert agent.run("two", timeout=10) == "plain"
        totals = agent.usage.session
    assert (totals.input_tokens, totals.output_tokens) == (120, 7)
    with pytest.raises(ValueError, match="input_tokens"):
        LLMSpec.model_validate({"provider": "scripted",
                                "responses": [{"text": "x", "input_tokens": -1}]})

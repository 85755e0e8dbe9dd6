"""Every text delta of a response is published before the response's end, whatever the
format, the provider a scripted model imitates, and the chunking: a subscriber that prints a
response's text when it ends (the CLI's live view) prints all of it."""

from __future__ import annotations

import json

import pytest

from autobyteus_like import Agent, AgentConfig, ScriptedLLM, tool
from autobyteus_like.events import AssistantTextDelta, LLMResponseCompleted, TurnCompleted
from autobyteus_like.llm._messages import NativeToolCall
from autobyteus_like.llm._scripted import ScriptedReply

PROSE = "The coder is on it; I will report when they answer."


@tool
def note(text: str) -> str:
    """Note something."""
    return "noted"


def _texts_per_response(events: list) -> list[str]:
    """The text published before each response's end (text after an end is a failure)."""
    texts: list[str] = []
    current: list[str] = []
    for event in events:
        if isinstance(event, AssistantTextDelta):
            current.append(event.text)
        elif isinstance(event, LLMResponseCompleted):
            texts.append("".join(current))
            current = []
        elif isinstance(event, TurnCompleted):
            assert not current, f"text published after its response ended: {current}"
    return texts


@pytest.mark.parametrize("fmt", ["xml", "json", "openai", "gemini", "execute", "tool_call"])
@pytest.mark.parametrize("chunk_size", [None, 1, 7, (1, 12)])
def test_every_text_delta_comes_before_the_end_of_its_response(fmt, chunk_size):
    llm = ScriptedLLM([PROSE], chunk_size=chunk_size)
    with Agent(AgentConfig(name="a", llm=llm, tools=[note], tool_format=fmt)) as agent:
        events = agent.events()
        assert agent.run("go", timeout=10) == PROSE
        seen = []
        while not isinstance(seen[-1] if seen else None, TurnCompleted):
            seen.append(events.get(timeout=5))
    assert [text.strip() for text in _texts_per_response(seen)] == [PROSE]


@pytest.mark.parametrize("provider", ["openai", "anthropic", "gemini", "mistral"])
def test_native_calls_and_text_of_each_provider(provider):
    call = NativeToolCall(id="c1", name="note", arguments=json.dumps({"text": "x"}))
    llm = ScriptedLLM([ScriptedReply("Noting it first.", tool_calls=(call,)), "Noted."],
                      provider=provider, chunk_size=(1, 5))
    with Agent(AgentConfig(name="a", llm=llm, tools=[note], tool_format="native")) as agent:
        events = agent.events()
        assert agent.run("go", timeout=10) == "Noted."
        seen = []
        while not isinstance(seen[-1] if seen else None, TurnCompleted):
            seen.append(events.get(timeout=5))
    assert _texts_per_response(seen) == ["Noting it first.", "Noted."]

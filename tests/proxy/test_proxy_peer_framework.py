"""A peer framework's agent loop (the OpenAI Agents SDK, a test-only dependency) reaching a
tool through the proxy: on a model behind a real local server that writes XML calls, and on
SmolLM2 served by llama.cpp with plain chatml, a chat format without native tools (slow)."""

from __future__ import annotations

import asyncio
import contextlib

import pytest

from autobyteus_like.proxy import ProxyServer, ProxySettings
from tests.chat_server import ChatServer, Reply, last_user_text, system_text
from tests.llama_server import TEXT_MODEL

agents = pytest.importorskip("agents", reason="the OpenAI Agents SDK (openai-agents) is a dev "
                                              "dependency: pip install -e '.[dev]'")
received: list[tuple[object, object]] = []


@agents.function_tool
def add(a: int, b: int) -> int:
    """Add two whole numbers.

    Args:
        a: The first number.
        b: The second number.
    """
    received.append((a, b))
    return a + b


@agents.function_tool
def add_loosely(a: str, b: str) -> str:
    """Add two whole numbers.

    Args:
        a: The first number.
        b: The second number.
    """
    received.append((a, b))
    return str(int(a or 0) + int(b or 0)) if f"{a}{b}".isdigit() or not f"{a}{b}" else "?"


def run_agent(proxy: ProxyServer, model: str, question: str, tool: object = add,
              **settings) -> str:
    from openai import AsyncOpenAI

    agents.set_tracing_disabled(True)
    client = AsyncOpenAI(base_url=proxy.url, api_key="unused", max_retries=0)
    agent = agents.Agent(
        name="adder", instructions="You add numbers with the add tool, then say the sum.",
        tools=[tool], model=agents.OpenAIChatCompletionsModel(model=model, openai_client=client),
        model_settings=agents.ModelSettings(**settings))
    # asyncio.run, not Runner.run_sync: it shuts the loop's executor down, leaving no thread
    result = asyncio.run(agents.Runner.run(agent, question, max_turns=4))
    return str(result.final_output)


def xml_adder(body: dict) -> Reply:
    if body["messages"][-1]["role"] == "tool" or "<tool_result" in last_user_text(body) or \
            "Result" in last_user_text(body):
        return Reply("The sum is 5.")
    if '<tool name="add">' in system_text(body):
        return Reply('<tool name="add"><arguments><arg name="a">2</arg><arg name="b">3</arg>'
                     '</arguments></tool>')
    return Reply("I have no tools.")


def test_the_agents_sdk_loop_reaches_a_tool_through_the_proxy():
    received.clear()
    with ChatServer(xml_adder) as upstream, \
            ProxyServer(ProxySettings(upstream.base_url, tool_format="xml")) as proxy:
        answer = run_agent(proxy, "m", "Add 2 and 3.")
    assert received == [(2, 3)]
    assert answer == "The sum is 5."
    assert all("tools" not in body for body in upstream.requests)


@pytest.mark.slow
def test_the_agents_sdk_loop_reaches_a_tool_on_smollm2_through_the_proxy(llama_server):
    """SmolLM2-135M at temperature 0 writes a readable XML call after the compact manifest's
    shown exchange, but copies its example values (empty strings): the tool here takes
    strings, so the SDK runs it with what the model wrote (an int-typed tool's arguments
    would fail the SDK's own validation, a fault of the model, not of the proxy)."""
    received.clear()
    settings = ProxySettings(llama_server.base_url, tool_format="xml", provider="llamacpp",
                             reask=True, manifest="compact")
    # a 135M model may not stop calling: reaching the tool is what counts
    with ProxyServer(settings) as proxy, \
            contextlib.suppress(agents.exceptions.MaxTurnsExceeded):
        run_agent(proxy, TEXT_MODEL, "Use the add_loosely tool to add 2 and 3.",
                  tool=add_loosely, temperature=0, max_tokens=96)
    assert received, f"the tool was never reached\n{llama_server.log_text()[-2000:]}"
    assert all(isinstance(a, str) and isinstance(b, str) for a, b in received)

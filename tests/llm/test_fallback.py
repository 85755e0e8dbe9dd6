"""FallbackLLM: real providers on their SDKs against local servers that fail in each way a
fallback answers (no connection, 5xx, 429 after its retries, context overflow), and in the
ways it must not (a bad key, a failure after the answer began, a reason not chosen)."""

from __future__ import annotations

import socket
import threading
from decimal import Decimal

import pytest

from autobyteus_like import Agent, AgentConfig
from autobyteus_like.errors import ConfigError, LLMError
from autobyteus_like.events import LLMModelSwitched
from autobyteus_like.llm import LLMRequest, Message
from autobyteus_like.llm._fallback import FallbackLLM, fallback_reason
from autobyteus_like.llm._openai import OpenAILLM
from autobyteus_like.llm._spec import LLMSpec
from autobyteus_like.usage._prices import ModelPrice, PriceTable
from tests.llm.provider_helpers import add, anthropic_on, collect, fs_read, openai_on
from tests.llm.replay_server import Failure, ReplayServer, Stream, fixture

HI = LLMRequest("", (Message("user", "hi"),))
OVERLOADED = Failure(503, {"error": {"message": "The server is overloaded."}})
RATE_LIMITED = Failure(429, {"error": {"message": "Rate limit reached."}},
                       {"retry-after-ms": "1"})
TOO_LONG = Failure(400, {"error": {
    "message": "This model's maximum context length is 128000 tokens. However, your "
               "messages resulted in 130512 tokens.", "code": "context_length_exceeded"}})
BAD_KEY = Failure(401, {"error": {"message": "Incorrect API key provided."}})


def closed_port_url() -> str:
    """A base URL where nothing listens (the port was bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def claude_text() -> Stream:
    return Stream(fixture("anthropic/text"), named=True, done=False)


@pytest.mark.parametrize("failure", [OVERLOADED, TOO_LONG], ids=["5xx", "context-overflow"])
def test_a_server_failure_moves_on_to_the_next_model(failure: Failure):
    with ReplayServer([failure]) as primary, ReplayServer([claude_text()]) as backup:
        llm = FallbackLLM([openai_on(primary, max_retries=0), anthropic_on(backup)])
        chunks = list(llm.stream(HI, threading.Event()))
    switch = chunks[0].switch
    assert switch is not None and (switch.from_model, switch.to_model) == (
        "gpt-4o-mini", "claude-sonnet-5")
    assert switch.reason.startswith("context_overflow" if failure is TOO_LONG else
                                    "server_error")
    assert "".join(c.text for c in chunks) == "Hello from Claude."
    assert len(primary.requests) == 1 and len(backup.requests) == 1


def test_no_connection_falls_back_and_a_429_only_after_its_retries():
    dead = OpenAILLM("gpt-4o-mini", base_url=closed_port_url(), api_key="k", max_retries=0)
    with ReplayServer([claude_text()]) as backup:
        text, _, _ = collect(FallbackLLM([dead, anthropic_on(backup)]), HI)
    assert text == "Hello from Claude."
    with ReplayServer([RATE_LIMITED, RATE_LIMITED]) as primary, \
            ReplayServer([claude_text()]) as backup:
        text, _, _ = collect(FallbackLLM([openai_on(primary, max_retries=1),
                                          anthropic_on(backup)]), HI)
    assert text == "Hello from Claude." and len(primary.requests) == 2  # retried once first


def failing(primary_reply: Failure | Stream, **options: object
            ) -> tuple[LLMError, list[dict[str, object]]]:
    """The error a fallback pair raises when its first model gets ``primary_reply``, and
    the requests its backup got."""
    with ReplayServer([primary_reply]) as primary, ReplayServer([claude_text()]) as backup, \
            pytest.raises(LLMError) as failed:
        collect(FallbackLLM([openai_on(primary, max_retries=0), anthropic_on(backup)],
                            **options), HI)  # type: ignore[arg-type]
    return failed.value, backup.requests


def test_what_fallback_must_not_answer_is_raised():
    error, asked = failing(BAD_KEY)
    assert error.status == 401 and asked == []
    error, asked = failing(OVERLOADED, fallback_on=["context_overflow"])
    assert error.status == 503 and asked == []
    # text already streamed cannot be taken back: a failure after it ends the request
    began = [{"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m",
              "choices": [{"index": 0, "delta": {"content": "Half an ans"}}]},
             {"error": {"message": "upstream died", "code": 502}}]
    error, asked = failing(Stream(began, done=False))
    assert error.server_message == "upstream died" and asked == []
    # the last model's failure is the error
    with ReplayServer([OVERLOADED]) as one, ReplayServer([OVERLOADED]) as two, \
            pytest.raises(LLMError) as last:
        collect(FallbackLLM([openai_on(one, max_retries=0), openai_on(two, max_retries=0)]), HI)
    assert last.value.server_message == "The server is overloaded."


def test_bad_configurations_are_named():
    with pytest.raises(ConfigError, match="at least two models"):
        FallbackLLM([])
    with pytest.raises(ConfigError, match="unknown"):
        FallbackLLM([OpenAILLM("a", api_key="k"), OpenAILLM("b", api_key="k")],
                    fallback_on=["teapot"])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="either as the list or as fallback"):
        LLMSpec.from_list([{"provider": "openai", "model": "a", "fallback": [
            {"provider": "openai", "model": "b"}]}, {"provider": "openai", "model": "c"}])
    assert fallback_reason(LLMError("x", status=404, server_message="no model")) is None


def test_an_agent_falls_back_to_another_provider_mid_conversation(monkeypatch):
    """Turn 1 on OpenAI makes native calls; its next request fails, and Claude gets the same
    history re-rendered for its wire, calls and results included. The switch is an event;
    the tokens are priced as the model that answered them."""
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    with ReplayServer([Stream(fixture("openai/parallel_tool_calls")), OVERLOADED]) as primary, \
            ReplayServer([claude_text()]) as backup:
        config = AgentConfig(
            name="steady", tools=[fs_read, add], tool_format="native",
            llm=[{"provider": "openai", "model": "gpt-4o-mini", "base_url": primary.base_url,
                  "max_retries": 0},
                 {"provider": "anthropic", "model": "claude-sonnet-5",
                  "base_url": backup.base_url.removesuffix("/v1"), "prompt_cache": False}],
            prices=PriceTable({
                "openai/gpt-4o-mini": ModelPrice(input_per_mtok=1000, output_per_mtok=1000),
                "anthropic/claude-sonnet-5": ModelPrice(input_per_mtok=1, output_per_mtok=1)}))
        with Agent(config) as agent:
            events = agent.events()
            assert agent.run("read and add", timeout=20) == "Hello from Claude."
            while not isinstance(switched := events.get(timeout=5), LLMModelSwitched):
                pass
            usage = agent.usage.run
    assert (switched.from_model, switched.to_model) == (
        "openai/gpt-4o-mini", "anthropic/claude-sonnet-5")
    assert switched.reason.startswith("server_error: openai gpt-4o-mini: HTTP 503")
    calls, results = backup.requests[0]["messages"][1:]
    assert [(b["type"], b["id"], b["name"]) for b in calls["content"]] == [
        ("tool_use", "call_A1b2C3", "fs_read"), ("tool_use", "call_D4e5F6", "add")]
    assert [(b["type"], b["tool_use_id"], b["content"]) for b in results["content"]] == [
        ("tool_result", "call_A1b2C3", "contents of README.md"),
        ("tool_result", "call_D4e5F6", "42")]
    openai_usage = fixture("openai/parallel_tool_calls")[-1]["usage"]
    openai_cost = Decimal(openai_usage["prompt_tokens"] + openai_usage["completion_tokens"]) \
        * 1000 / 1_000_000
    claude_cost = Decimal(25 + 9) / 1_000_000  # fixtures/anthropic/text.json's usage
    assert usage.cost_usd == openai_cost + claude_cost


def test_llm_as_a_list_or_with_fallback_builds_a_fallback_llm(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    listed = AgentConfig(name="a", llm=[{"provider": "openai", "model": "gpt-4o"},
                                        {"provider": "anthropic", "model": "claude-x"}])
    built = listed.build_llm()
    assert isinstance(built, FallbackLLM)
    assert [m.provider.value for m in built.models] == ["openai", "anthropic"]
    assert built.provider.value == "openai" and listed.resolved_format() == "openai"
    nested = LLMSpec.model_validate({
        "provider": "openai", "model": "gpt-4o", "api": "responses",
        "fallback": [{"provider": "openai", "model": "gpt-4o-mini"}],
        "fallback_on": ["rate_limit"]}).build()
    assert isinstance(nested, FallbackLLM) and nested.fallback_on == {"rate_limit"}
    assert type(nested.models[0]).__name__ == "OpenAIResponsesLLM"
    scripted = AgentConfig(name="b", llm=[{"provider": "scripted", "responses": ["x"]},
                                          {"provider": "scripted", "responses": ["y"]}])
    assert isinstance(scripted.llm, FallbackLLM)  # offline models are built at once
    specs = AgentConfig(name="c", llm=[LLMSpec(provider="openai", model="gpt-4o"),
                                       LLMSpec(provider="gemini", model="gemini-2.5-flash")])
    assert isinstance(specs.llm, LLMSpec) and specs.llm.fallback[0].provider == "gemini"
    with pytest.raises(ValueError, match="must be a mapping"):
        AgentConfig(name="d", llm=[OpenAILLM("a", api_key="k"), {"provider": "scripted"}])
    with pytest.raises(ValueError, match="api: responses is for OpenAI-compatible"):
        LLMSpec(provider="anthropic", model="claude-x", api="responses")


def test_the_live_view_and_the_json_view_show_a_switch():
    import io

    from rich.console import Console

    from autobyteus_like.cli._view import RichView, event_json
    from autobyteus_like.events import LLMResponseCompleted

    out = io.StringIO()
    switch = LLMModelSwitched(agent="lead", request_no=1, from_model="openai/gpt-4o",
                              to_model="anthropic/claude-x", reason="server_error: HTTP 503")
    RichView(console=Console(file=out, width=200)).show(switch)
    assert "lead falls back from openai/gpt-4o to anthropic/claude-x (server_error: HTTP 503)" \
        in " ".join(out.getvalue().split())
    done = LLMResponseCompleted(agent="lead", request_no=1, answered_by=("anthropic", "x"),
                                carried=({"wire": "w", "item": {"encrypted_content": "..."}},))
    assert "carried" not in event_json(done) and event_json(done)["answered_by"] == [
        "anthropic", "x"]

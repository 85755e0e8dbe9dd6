"""A fallback is on the request's span: which model answered, and the switch as an event."""

from __future__ import annotations

from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from autobyteus_like import Agent, AgentConfig, ScriptedLLM
from autobyteus_like.llm._fallback import FallbackLLM
from autobyteus_like.tracing import Tracing
from tests.llm.provider_helpers import openai_on
from tests.llm.replay_server import Failure, ReplayServer


def test_the_chat_span_names_the_fallback_model(tracing: Tracing,
                                                exporter: InMemorySpanExporter):
    overloaded = Failure(503, {"error": {"message": "The server is overloaded."}})
    with ReplayServer([overloaded]) as server:
        llm = FallbackLLM([openai_on(server, max_retries=0), ScriptedLLM(["from the backup"])])
        with Agent(AgentConfig(name="solo", llm=llm), tracing=tracing) as agent:
            assert agent.run("hi", timeout=20) == "from the backup"
    chat = next(s for s in exporter.get_finished_spans() if s.name.startswith("chat"))
    assert chat.name == "chat gpt-4o-mini" and chat.attributes is not None
    assert chat.attributes["gen_ai.request.model"] == "gpt-4o-mini"
    assert chat.attributes["gen_ai.response.model"] == "scripted"
    assert chat.attributes["autobyteus.llm.fallback_model"] == "scripted/scripted"
    (event,) = chat.events
    assert event.name == "fallback" and event.attributes is not None
    assert str(event.attributes["reason"]).startswith(
        "openai/gpt-4o-mini -> scripted/scripted: server_error: openai gpt-4o-mini: HTTP 503")

"""tool_format: auto remembers what it learned per (provider, base URL, model), in the session
store when there is one, else in the cache file: the next agent (the next process) starts from
it; the eval's verdict wins over it; a learned format that then fails is dropped. A server
error saying the feature is unsupported is not retried."""

from __future__ import annotations

from io import StringIO

import pytest
from rich.console import Console

from autobyteus_like import Agent, AgentConfig, tool
from autobyteus_like.agent._format_memory import model_key
from autobyteus_like.cli._view import RichView
from autobyteus_like.errors import AgentTurnError
from autobyteus_like.events import LLMAdapted
from autobyteus_like.llm._openai import OpenAILLM
from autobyteus_like.store import Session, open_store
from autobyteus_like.store._model_formats import ModelFormats
from tests.llm.replay_server import Failure, ReplayServer, Stream

XML_CALL = ('<tool name="add"><arguments><arg name="a">2</arg>'
            '<arg name="b">3</arg></arguments></tool>')
JSON_CALL = '{"name": "add", "arguments": {"a": 2, "b": 3}}'
REFUSED = Failure(400, {"error": {"message": "this model does not support tools"}})


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def text(content: str) -> Stream:
    return Stream([{"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m",
                    "choices": [{"index": 0, "delta": {"content": content},
                                 "finish_reason": "stop"}]}])


def run(server: ReplayServer, *, session: Session | None = None, **config) -> tuple[str, list]:
    llm = OpenAILLM("m", base_url=server.base_url, api_key="k", max_retries=3)
    agent = Agent(AgentConfig(name="a", llm=llm, tools=[add], tool_format="auto", **config),
                  session=session)
    with agent:
        events = agent.events()
        answer = agent.run("What is 2 + 3?", timeout=20)
        agent.stop()
        seen = list(iter(lambda: events.get(timeout=1), None))
    return answer, seen


def key_of(server: ReplayServer):
    return model_key(OpenAILLM("m", base_url=server.base_url, api_key="k"))


def test_what_auto_learned_starts_the_next_agent_without_asking_natively_again():
    with ReplayServer([REFUSED, text(XML_CALL), text("5."),
                       text(XML_CALL), text("It is 5.")]) as server:
        first, _ = run(server)
        known = ModelFormats.cached().known(key_of(server))
        assert known is not None and known.learned == "xml"
        assert "does not support tools" in (known.learned_reason or "")
        answer, seen = run(server)  # a new agent, a new LLM: as a new process would
    assert (first, answer) == ("5.", "It is 5.")
    later = server.requests[3:]
    assert all("tools" not in body for body in later)  # no native request: no negotiation
    assert '<tool name="add">' in later[0]["messages"][0]["content"]
    [adapted] = [e for e in seen if isinstance(e, LLMAdapted)]
    assert adapted.now == "xml" and adapted.reason.startswith("learned earlier on this server")


def test_the_eval_verdict_wins_over_what_auto_learned():
    with ReplayServer([text(JSON_CALL), text("Five.")]) as server:
        table = ModelFormats.cached()
        table.learn(key_of(server), "xml", "an earlier run")
        table.judge(key_of(server), "json", {"json": {"success": 1.0}})
        answer, seen = run(server)
    assert answer == "Five."
    assert "tools" not in server.requests[0]
    assert '"name": "add"' in server.requests[0]["messages"][0]["content"]  # JSON's manifest
    [adapted] = [e for e in seen if isinstance(e, LLMAdapted)]
    assert adapted.now == "json" and "eval-formats verdict" in adapted.reason


def test_a_learned_format_that_then_fails_is_dropped():
    with ReplayServer([text("I will not call anything."), text("Still no call."),
                       text("No.")]) as server:
        ModelFormats.cached().learn(key_of(server), "json", "an earlier run")
        run(server, tool_choice="required")
        assert ModelFormats.cached().known(key_of(server)) is None
    assert "tools" not in server.requests[0]  # it started from the learned json


def test_with_a_session_store_the_table_is_the_stores(tmp_path):
    store = open_store(tmp_path / "s.db")
    try:
        with ReplayServer([REFUSED, text(XML_CALL), text("5.")]) as server:
            session = Session("s", store)
            run(server, session=session)
            known = ModelFormats.in_store(store).known(key_of(server))
            assert known is not None and known.learned == "xml"
            assert ModelFormats.cached().known(key_of(server)) is None
    finally:
        store.close()


def test_a_server_error_saying_unsupported_is_not_retried():
    unsupported = Failure(500, {"error": {"message": "tool calls are not supported by the "
                                                     "chatml chat format"}})
    with ReplayServer([unsupported, text(XML_CALL), text("It is 5.")]) as server:
        answer, seen = run(server)
    assert answer == "It is 5."
    assert len(server.requests) == 3  # one refusal, then XML at once: no retries with backoff
    assert [e.now for e in seen if isinstance(e, LLMAdapted)] == ["xml"]


def test_the_live_view_shows_each_adaptation():
    out = StringIO()
    view = RichView(console=Console(file=out, width=200, highlight=False))
    view.show(LLMAdapted(agent="coder", request_no=1, what="tool_format", now="xml",
                         reason="native tool calling failed on this server (HTTP 500)"))
    view.show(LLMAdapted(agent="coder", request_no=2, what="wire", now="unstreamed",
                         reason="the server failed the streamed request with tools"))
    shown = out.getvalue()
    assert "coder adapts: tool format xml (native tool calling failed on this server" in shown
    assert "coder adapts: requests with tools unstreamed (the server failed" in shown


def test_validate_shows_auto_and_where_it_starts(tmp_path, capsys):
    from autobyteus_like.cli import main
    from autobyteus_like.store._model_formats import ModelKey

    team = tmp_path / "t.yaml"
    team.write_text("name: t\ncoordinator: a\nmembers:\n  - name: a\n    tool_format: auto\n"
                    "    llm: {provider: llamacpp, model: smollm2, "
                    "base_url: 'http://127.0.0.1:9/v1'}\n")
    assert main(["validate", str(team)]) == 0
    out = capsys.readouterr().out
    assert "members: a (auto)" in out
    assert "member 'a': native (tool_format auto: native function calling, a text format " \
           "(xml, then json) if the server fails it; nothing is known of llamacpp smollm2 at " \
           "http://127.0.0.1:9/v1 yet)" in out
    ModelFormats.cached().learn(ModelKey("llamacpp", "http://127.0.0.1:9/v1", "smollm2"),
                                "xml", "native tool calling failed on this server (HTTP 500)")
    assert main(["validate", str(team)]) == 0
    assert "member 'a': xml (tool_format auto: learned earlier on this server: native tool " \
           "calling failed" in capsys.readouterr().out


def test_an_outage_is_not_a_reason_to_leave_native_calls():
    outage = Failure(500, {"error": {"message": "The server had an error"}})
    with ReplayServer([outage]) as server:
        llm = OpenAILLM("m", base_url=server.base_url, api_key="k", max_retries=0)
        agent = Agent(AgentConfig(name="a", llm=llm, tools=[add], tool_format="auto"))
        with agent, pytest.raises(AgentTurnError, match="The server had an error"):
            agent.run("What is 2 + 3?", timeout=20)
    assert len(server.requests) == 1  # no switch to a text format, nothing remembered
    assert ModelFormats.cached().known(key_of(server)) is None

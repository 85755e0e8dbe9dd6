"""Prompts, resources, elicitation and sampling with a server written with the official SDK
(``servers/asking_server.py``): what a server may ask of us, and the answers it gets."""

from __future__ import annotations

import io
import sys
import threading
from collections.abc import Callable
from typing import Any

import anyio
import pytest
from rich.console import Console

from autobyteus_like import ScriptedLLM, ToolFailure
from autobyteus_like.cli._elicitation import TerminalElicitation
from autobyteus_like.mcp import ElicitationRequest, LLMSampler, MCPToolset, SamplingRequest
from autobyteus_like.mcp._elicitation import elicitation_callback
from tests.mcp.server_processes import SERVERS

ASKING = str(SERVERS / "asking_server.py")


class Person:
    """The person at the other end: whatever ``answer`` says, and what they were asked."""

    def __init__(self) -> None:
        self.answer: Callable[[ElicitationRequest], Any] = lambda request: None
        self.asked: list[ElicitationRequest] = []

    def __call__(self, request: ElicitationRequest) -> Any:
        self.asked.append(request)
        return self.answer(request)


@pytest.fixture(scope="module")
def person() -> Person:
    return Person()


@pytest.fixture(scope="module")
def approvals() -> list[bool]:
    return [True]


@pytest.fixture(scope="module")
def sampler() -> LLMSampler:
    return LLMSampler(ScriptedLLM(["forty-two", "again"]))


class Updates:
    """The URIs the server said changed."""

    def __init__(self) -> None:
        self.uris: list[str] = []
        self.changed = threading.Condition()

    def __call__(self, uri: str) -> None:
        with self.changed:
            self.uris.append(uri)
            self.changed.notify_all()

    def wait(self, uri: str) -> bool:
        with self.changed:
            return self.changed.wait_for(lambda: uri in self.uris, timeout=30)


@pytest.fixture(scope="module")
def updates() -> Updates:
    return Updates()


@pytest.fixture(scope="module")
def asking(person, approvals, sampler, updates):
    toolset = MCPToolset.stdio(sys.executable, [ASKING], name="ask", resources_tool=True,
                               max_result_chars=1_000, elicitation_timeout_s=2,
                               sampling=True, sampler=sampler,
                               approve_sampling=lambda request: approvals[0],
                               on_elicitation=person, on_resource_updated=updates)
    with toolset:
        yield toolset


def tool(toolset: MCPToolset, name: str) -> Any:
    return next(t for t in toolset.tools() if t.name == f"{toolset.name}.{name}")


def said(toolset: MCPToolset, name: str, **arguments: Any) -> str:
    """The text a tool of the asking server returned (its structured ``result``)."""
    value = tool(toolset, name).run(arguments)
    return str(value["result"] if isinstance(value, dict) else value)


def test_prompts_listed_and_filled_in(asking):
    [info] = asking.prompts()
    assert info.name == "reviewer" and info.arguments == {"language": True}
    prompt = asking.prompt("reviewer", {"language": "Rust"})
    assert prompt.messages == (("user", "You review Rust code strictly."),
                               ("assistant", "Understood."))
    assert prompt.text.startswith("You review Rust code strictly.")
    with pytest.raises(ToolFailure, match="language"):  # the server's complaint, named
        asking.prompt("reviewer", {})


def test_resources_listed_read_and_capped(asking):
    assert {r.uri for r in asking.resources()} == {"notes://big", "notes://short"}
    assert asking.read_resource("notes://short") == "the short note"
    big = asking.read_resource("notes://big")
    assert big.startswith("x" * 1_000) and "50000 characters" in big and len(big) < 1_200
    reader = tool(asking, "read_resource")
    assert "notes://short" in reader.description  # the listing is in its description
    assert reader.run({"uri": "notes://short"}) == "the short note"
    with pytest.raises(ToolFailure):
        reader.run({"uri": "notes://nothing-here"})


def test_resource_updates_reach_the_callback(asking, updates):
    asking.subscribe("notes://short")
    assert said(asking, "touch") == "touched"
    assert updates.wait("notes://short")


def test_elicitation_answered_and_validated(asking, person):
    person.answer = lambda request: {"name": "Ada", "age": 36}
    assert said(asking, "ask") == "accept {'name': 'Ada', 'age': 36}"
    assert person.asked[-1].message == "Who are you?" and person.asked[-1].server == "ask"
    person.answer = lambda request: {"name": "A"}  # too short for the server's schema
    assert said(asking, "ask").startswith("decline")
    person.answer = lambda request: False
    assert said(asking, "ask").startswith("cancel")


def terminal(answers: str) -> tuple[TerminalElicitation, io.StringIO]:
    shown = io.StringIO()
    return TerminalElicitation(Console(file=shown, width=200),
                               stream=io.StringIO(answers)), shown


def test_the_person_at_the_terminal_answers_field_by_field(asking, person):
    """``run``'s terminal as the elicitation handler (on this module's server)."""
    asker, shown = terminal("y\nAda\n36\n")
    person.answer = lambda request: asker(request)
    assert said(asking, "ask") == "accept {'name': 'Ada', 'age': 36}"
    assert "MCP server ask asks: Who are you?" in shown.getvalue()
    asker, _ = terminal("n\n")  # no: declined
    assert said(asking, "ask").startswith("decline")
    asker, shown = terminal("y\nAda\n")  # the input ends half way: declined
    assert said(asking, "ask").startswith("decline")
    assert "the input ended" in shown.getvalue()
    asker, shown = terminal("y\nAda\nold\n")  # not an integer: declined, never sent
    assert said(asking, "ask").startswith("decline")
    asker, _ = terminal("y\nA\n\n")  # too short for the server's schema: declined
    assert said(asking, "ask").startswith("decline")


def test_elicitation_with_a_schema_mcp_does_not_allow_is_declined_unasked():
    from mcp_types import ElicitRequestFormParams

    asked: list[ElicitationRequest] = []
    callback = elicitation_callback("s", asked.append, 5)
    nested = {"type": "object", "properties": {"address": {
        "type": "object", "properties": {"city": {"type": "string"}}}}}
    params = ElicitRequestFormParams(message="where?", requested_schema=nested)
    result = anyio.run(callback, None, params)
    assert result.action == "decline" and asked == []


def test_elicitation_nobody_answers_is_a_decline_not_a_hang(asking, person):
    released = threading.Event()
    person.answer = lambda request: released.wait(30) and {"name": "late"}
    try:
        assert said(asking, "ask").startswith("decline")
    finally:
        released.set()


@pytest.mark.slow  # a second server start (about 1 s idle, more under load)
def test_elicitation_without_a_handler_declines_at_once():
    with MCPToolset.stdio(sys.executable, [ASKING], name="ask") as toolset:
        assert said(toolset, "ask").startswith("decline")
        with pytest.raises(ToolFailure, match="did not declare the sampling capability"):
            said(toolset, "sample", prompt="hi")


def test_sampling_answered_by_the_llm_under_approval(asking, sampler, approvals):
    approvals[0] = True
    assert said(asking, "sample", prompt="the answer?") == "sampled: forty-two"
    [request] = sampler.llm.requests
    assert request.system_prompt == "Be brief."
    assert request.messages[0].content == "the answer?"
    approvals[0] = False
    with pytest.raises(ToolFailure, match="not approved"):
        said(asking, "sample", prompt="again?")
    assert len(sampler.llm.requests) == 1  # the LLM was never asked


def test_sampling_request_type():
    request = SamplingRequest("s", "", (("user", "hi"),), 10)
    assert request.messages[0] == ("user", "hi")

"""An MCP server's elicitation during a run of ``serve``: a card on the page (the custom event
``elicitation_requested`` with the server's message and schema), answered once by the token's
holder over ``/api/elicitation`` (an answer that does not fit the schema refused, the card
staying), declined at its timeout when nobody answers. The team's MCP servers are
tests/mcp/servers/asking_server.py (one slow to give up, one quick)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.mcp.test_asking import ASKING
from tests.web.served_team import WebServer, call

pytestmark = pytest.mark.slow  # a real server with two MCP servers


def asking_web_team(tmp_path: Path) -> Path:
    path = tmp_path / "askers.yaml"
    path.write_text(json.dumps({
        "name": "askers", "coordinator": "lead",
        "mcp_servers": {
            "ask": {"command": sys.executable, "args": [ASKING]},
            "quick": {"command": sys.executable, "args": [ASKING],
                      "elicitation_timeout_s": 0.5}},
        "members": [{"name": "lead", "tools": ["ask.ask", "quick.ask"], "tool_format": "json",
                     "llm": {"provider": "scripted", "responses": [
                         call("ask.ask"), "first done", call("ask.ask"), "second done",
                         call("quick.ask"), "third done"]}}]}))
    return path


def until(server: WebServer, after: int, name: str) -> tuple[int, dict[str, Any]]:
    """The next custom event ``name`` after event ``after`` (its id and value)."""
    for event_id, event in server.stream(after):
        if event["type"] == "CUSTOM" and event["name"] == "autobyteus." + name:
            return event_id, event["value"]
    raise AssertionError(f"no {name} event")


def result_of_run(server: WebServer, after: int) -> str:
    events = server.events(after, until="RUN_FINISHED")
    [result] = [e["content"] for _, e in events if e["type"] == "TOOL_CALL_RESULT"]
    return str(result)


def test_the_page_is_asked_answers_once_and_an_unanswered_question_is_declined(tmp_path):
    server = WebServer(asking_web_team(tmp_path))
    try:
        start = server.state()["last_event_id"]
        assert server.post("/api/run", {"message": "who am I?"})[0] == 202
        _, asked = until(server, start, "elicitation_requested")
        assert (asked["server"], asked["message"], asked["member"]) == ("ask", "Who are you?",
                                                                         "lead")
        assert set(asked["schema"]["properties"]) == {"name", "age"}
        answer = {"id": asked["id"], "action": "accept", "content": {"name": "Ada", "age": 36}}
        status, _ = server.request("POST", "/api/elicitation", answer, token=False)
        assert status in (401, 403)  # only the token's holder answers
        status, refused = server.post("/api/elicitation", {**answer, "content": {"name": "A"}})
        assert status == 400 and "does not fit" in refused["error"]  # the card stays
        assert server.post("/api/elicitation", answer) == (
            200, {"done": "accepted the question of MCP server 'ask'"})
        status, again = server.post("/api/elicitation", {**answer, "action": "decline"})
        assert status == 409 and "waits for an answer" in again["error"]
        assert "accept {'name': 'Ada', 'age': 36}" in result_of_run(server, start)

        start = server.state()["last_event_id"]  # cancelled from the page
        server.post("/api/run", {"message": "again"})
        _, asked = until(server, start, "elicitation_requested")
        assert server.post("/api/elicitation", {"id": asked["id"], "action": "cancel"})[0] == 200
        assert "cancel None" in result_of_run(server, start)

        start = server.state()["last_event_id"]  # nobody answers: declined at 0.5 s
        server.post("/api/run", {"message": "and now?"})
        _, settled = until(server, start, "elicitation_settled")
        assert (settled["outcome"], settled["why"]) == ("declined", "no answer within 0.5 s")
        assert "decline None" in result_of_run(server, start)
    finally:
        assert server.stop() == 0

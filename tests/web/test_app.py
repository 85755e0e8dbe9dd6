"""The web server over real HTTP: the guard, the AG-UI run endpoint, the event stream and its
replay, the page's commands refusing what they must."""

from __future__ import annotations

import http.client
import json

import pytest

from tests.web.served_team import WebServer, call, write_team

pytestmark = pytest.mark.slow  # a real server in a subprocess per test


@pytest.fixture
def chatty(tmp_path):
    """A lead that asks a helper (both writing prose in chunks) and answers."""
    team = write_team(tmp_path, [
        {"name": "lead", "tool_format": "json", "tools": ["send_message_to"],
         "llm": {"provider": "scripted", "chunk_size": 6, "responses": [
             "Asking. " + call("send_message_to", recipient_name="helper", content="count"),
             "Asked.", "The helper counted 3."]}},
        {"name": "helper", "tool_format": "json", "tools": ["echo", "send_message_to"],
         "llm": {"provider": "scripted", "chunk_size": 4, "responses": [
             "Echo first. " + call("echo", text="1 2 3"),
             call("send_message_to", recipient_name="lead", content="3"), "Sent."]}},
    ])
    server = WebServer(team)
    yield server
    assert server.stop() == 0


def raw_post(server: WebServer, path: str, body: str) -> tuple[int, str]:
    """A POST of ``body`` as it is (not JSON-encoded)."""
    connection = http.client.HTTPConnection(server.host, server.port, timeout=30)
    try:
        connection.request("POST", path, body.encode(), {
            "Authorization": f"Bearer {server.token}", "Content-Type": "application/json"})
        response = connection.getresponse()
        return response.status, response.read().decode()
    finally:
        connection.close()


def test_every_request_needs_the_token_and_a_known_host(chatty):
    assert chatty.request("GET", "/", token=False)[0] == 403
    assert chatty.request("GET", "/api/state", token=False)[0] == 403
    assert chatty.request("GET", "/events", token=False,
                          headers={"Authorization": "Bearer wrong"})[0] == 403
    assert chatty.request("POST", "/api/run", {"message": "hi"}, token=False)[0] == 403
    status, text = chatty.request("GET", "/", headers={"Host": f"evil.example:{chatty.port}"})
    assert status == 403 and "Host" in text
    status, page = chatty.request("GET", f"/?token={chatty.token}", token=False)
    assert status == 200 and "<main id=\"members\">" in page
    assert "http://" not in page and "https://" not in page  # nothing loaded from elsewhere
    assert chatty.request("GET", "/api/stop")[0] == 405  # a command is a POST
    assert chatty.request("GET", "/api/run")[0] == 405
    assert chatty.state()["running"] is None  # nothing above started a run


def test_the_page_runs_only_its_own_script(chatty):
    import http.client

    connection = http.client.HTTPConnection(chatty.host, chatty.port)
    connection.request("GET", f"/?token={chatty.token}")
    response = connection.getresponse()
    policy = response.getheader("content-security-policy") or ""
    response.read()
    connection.close()
    assert "default-src 'none'" in policy and "script-src 'sha256-" in policy
    assert "img-src 'none'" in policy and "unsafe-inline" not in policy


def test_agui_run_endpoint_streams_one_run_in_protocol_order(chatty):
    run = {"threadId": "thread-7", "runId": "run-7", "state": {}, "tools": [], "context": [],
           "forwardedProps": {},
           "messages": [{"id": "m1", "role": "user", "content": "count it"}]}
    events = chatty.events(path="/agui", body=run)
    types = [event["type"] for _, event in events]
    assert types[0] == "RUN_STARTED" and types[-1] == "RUN_FINISHED"
    assert events[0][1]["threadId"] == "thread-7" and events[0][1]["runId"] == "run-7"
    assert events[-1][1]["result"] == "The helper counted 3."
    ids = [event_id for event_id, _ in events]
    assert ids == list(range(ids[0], ids[0] + len(ids)))  # numbered, none missing
    open_messages: set[str] = set()
    calls: dict[str, str] = {}
    text: dict[str, str] = {}
    for _, event in events:
        kind = event["type"]
        if kind == "TEXT_MESSAGE_START":
            open_messages.add(event["messageId"])
            text[event["messageId"]] = ""
        elif kind == "TEXT_MESSAGE_CONTENT":
            assert event["messageId"] in open_messages
            text[event["messageId"]] += event["delta"]
        elif kind == "TEXT_MESSAGE_END":
            open_messages.remove(event["messageId"])
        elif kind == "TOOL_CALL_START":
            calls[event["toolCallId"]] = "started"
        elif kind == "TOOL_CALL_END":
            assert calls[event["toolCallId"]] == "started"
            calls[event["toolCallId"]] = "ended"
        elif kind == "TOOL_CALL_RESULT":
            assert calls[event["toolCallId"]] == "ended"
            calls[event["toolCallId"]] = "result"
    assert not open_messages and set(calls.values()) == {"result"} and len(calls) == 3
    assert "Asking. " in text.values() and "Echo first. " in text.values()
    members = {event.get("metadata", {}).get("member") for _, event in events}
    assert {"lead", "helper"} <= members
    results = [event["content"] for _, event in events if event["type"] == "TOOL_CALL_RESULT"]
    assert "1 2 3" in results and "delivered to helper" in results
    # the same run id again is refused, not mixed into the first run's stream
    status, text_reply = chatty.request("POST", "/agui", run)
    assert status == 409 and "run-7" in text_reply


def test_a_reconnecting_client_gets_what_it_missed_once(chatty):
    status, _ = chatty.post("/api/run", {"message": "count it"})
    assert status == 202
    everything = chatty.events(until="RUN_FINISHED")
    last = everything[-1][0]
    middle = everything[len(everything) // 2][0]
    again = chatty.events(last_event_id=middle, until="RUN_FINISHED")
    assert [event_id for event_id, _ in again] == list(range(middle + 1, last + 1))
    assert [event for _, event in again] == [event for _, event in everything[middle:]]
    by_query = chatty.events(path=f"/events?last_event_id={last - 1}", until="RUN_FINISHED")
    assert [event_id for event_id, _ in by_query] == [last]


def test_bad_requests_say_what_is_wrong(chatty):
    status, text = chatty.request("POST", "/agui", {"threadId": "t"})
    assert status == 400 and "RunAgentInput" in text
    status, text = chatty.request("POST", "/agui", {"threadId": "t", "runId": "r",
                                                    "messages": []})
    assert status == 400 and "no user message" in text
    status, reply = chatty.post("/api/run", {"message": 7})
    assert status == 400 and "'message'" in reply["error"]
    status, text = chatty.request("GET", "/events", headers={"Last-Event-ID": "x"})
    assert status == 400 and "Last-Event-ID" in text
    status, reply = chatty.post("/api/approve", {"tool_call_id": "lead:nope"})
    assert status == 409 and "no call 'nope'" in reply["error"]
    status, reply = chatty.post("/api/approve", {"member": "lead", "call_id": "nope"})
    assert status == 409 and "no call 'nope'" in reply["error"]
    status, reply = chatty.post("/api/deny", {"tool_call_id": "x:call_1"})
    assert status == 409 and "no member 'x'" in reply["error"]
    status, reply = chatty.post("/api/approve", {"member": "lead", "tool_call_id": "nope"})
    assert status == 400 and "'member:id'" in reply["error"]  # the id an event shows, or none
    status, reply = chatty.post("/api/approve", {"member": "helper", "tool_call_id": "lead:c"})
    assert status == 400 and "a call of 'lead'" in reply["error"]
    status, text = chatty.request("POST", "/api/run", None)
    assert status == 400
    status, text = chatty.request("POST", "/api/run", {"message": "x" * 1_000_001})
    assert status == 413 and "over 1000000 bytes" in text
    # deep JSON and hostile event ids
    deep = "[" * 100_000 + "]" * 100_000
    for path in ("/api/run", "/agui", "/api/approve"):
        status, text = raw_post(chatty, path, deep)
        assert status == 400 and "nested too deeply" in text, (path, text)
    for hostile in ("\u00b2", "9" * 5000):  # digits to str.isdigit, not to int()
        status, text = chatty.request("GET", "/events", headers={"Last-Event-ID": hostile})
        assert status == 400 and "Last-Event-ID" in text, text
    assert json.loads(chatty.request("POST", "/api/stop", {})[1]) == {"stopped": False}


def test_an_agui_clients_run_id_never_blocks_the_pages_runs(chatty):
    run = {"threadId": "t", "runId": "run-1", "state": {}, "tools": [], "context": [],
           "forwardedProps": {}, "messages": [{"id": "m1", "role": "user", "content": "go"}]}
    events = chatty.events(path="/agui", body=run)
    assert events[0][1]["runId"] == "run-1" and events[-1][1]["type"] == "RUN_FINISHED"
    status, reply = chatty.post("/api/run", {"message": "count it"})  # the page's Send
    assert status == 202 and reply["run_id"] != "run-1"
    after = chatty.events(last_event_id=events[-1][0], until="RUN_STARTED")
    assert after[0][1]["runId"] == reply["run_id"]  # the server's own id, not the client's


def test_a_typed_answer_finishes_the_run_as_a_json_object(tmp_path):
    final = json.dumps({"name": "final_result", "arguments": {"ok": True, "n": [1, 2]}})
    team = write_team(tmp_path, [{
        "name": "lead", "tool_format": "json", "llm": {"provider": "scripted",
                                                       "responses": [final]},
        "output_schema": {"type": "object", "required": ["ok", "n"], "properties": {
            "ok": {"type": "boolean"}, "n": {"type": "array", "items": {"type": "integer"}}}}}])
    server = WebServer(team)
    try:
        run = {"threadId": "t", "runId": "r", "state": {}, "tools": [], "context": [],
               "forwardedProps": {}, "messages": [{"id": "m", "role": "user", "content": "go"}]}
        events = server.events(path="/agui", body=run)
        assert events[-1][1]["type"] == "RUN_FINISHED"
        assert events[-1][1]["result"] == {"ok": True, "n": [1, 2]}  # not its JSON text
    finally:
        assert server.stop() == 0

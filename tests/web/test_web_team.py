"""Runs driven from the web: a decision is taken once (the loser is told), a denial reaches the
model, Stop cuts a run and the next one works, and with a durable session a decision from the
page is the same stored decision as ``approve`` on the command line."""

from __future__ import annotations

import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest

from autobyteus_like.store import CallState, open_store
from tests.serving.left_sessions import assert_cut_then_fresh, killed_mid_tool, waiting_team
from tests.web.served_team import TOOLS, WebServer, body_running, call, write_team

pytestmark = pytest.mark.slow  # a real server in a subprocess per test


def purging_team(tmp_path, marker, responses=None):
    return write_team(tmp_path, [
        {"name": "lead", "tool_format": "json", "tools": ["purge", "wait"],
         "auto_execute_tools": False, "approval_policy": "marked",
         "llm": {"provider": "scripted", "responses": responses or [
             "Purging. " + call("purge", marker=str(marker)), "Purged once.",
             call("purge", marker=str(marker)), "Told no."]}}])


def until_waiting(server: WebServer, after: int = 0) -> tuple[int, dict]:
    """Read the stream until a call waits for approval: its event id and value."""
    for event_id, event in server.stream(last_event_id=after):
        if event["type"] == "CUSTOM" and event["name"] == "autobyteus.approval_requested":
            return event_id, event["value"]
    raise AssertionError("no call waited")


def test_racing_approvals_decide_once_and_the_losers_are_told(tmp_path):
    marker = tmp_path / "marker"
    server = WebServer(purging_team(tmp_path, marker))
    try:
        assert server.post("/api/run", {"message": "purge"})[0] == 202
        _, waiting = until_waiting(server)
        decision = {"tool_call_id": waiting["tool_call_id"]}  # the id the event shows
        with ThreadPoolExecutor(4) as pool:
            replies = list(pool.map(lambda path: server.post(path, decision),
                                    ["/api/approve", "/api/approve", "/api/deny",
                                     "/api/approve"]))
        won = [reply for status, reply in replies if status == 200]
        lost = [reply["error"] for status, reply in replies if status == 409]
        assert len(won) == 1 and len(lost) == 3
        verdict = "approved" if won[0]["done"].startswith("approved") else "denied"
        assert all(f"was already {verdict}" in error for error in lost)
        events = server.events(until="RUN_FINISHED")
        decided = [e for _, e in events if e["type"] == "CUSTOM"
                   and e["name"] == "autobyteus.approval_decided"]
        assert len(decided) == 1
        ran = marker.exists() and marker.read_text() == "purged\n"
        assert ran == (verdict == "approved")
    finally:
        assert server.stop() == 0


def test_a_denial_reaches_the_model_and_stop_cuts_a_run(tmp_path):
    marker = tmp_path / "marker"
    waited = tmp_path / "waited"
    server = WebServer(purging_team(tmp_path, marker, [
        call("purge", marker=str(marker)), "Told no.",
        call("wait", seconds=60, marker=str(waited)), "never said"]))
    try:
        assert server.post("/api/run", {"message": "purge"})[0] == 202
        after, waiting = until_waiting(server)
        status, reply = server.post("/api/deny", {"member": "lead", "reason": "not today",
                                                  "call_id": waiting["call_id"]})
        assert status == 200 and reply["done"].startswith("denied purge")
        events = server.events(last_event_id=after, until="RUN_FINISHED")
        results = [e["content"] for _, e in events if e["type"] == "TOOL_CALL_RESULT"]
        assert results == ["DENIED: denied: not today"]  # what the model is given
        assert events[-1][1]["result"] == "Told no." and not marker.exists()

        last = events[-1][0]
        assert server.post("/api/run", {"message": "wait"})[0] == 202
        for _, event in server.stream(last_event_id=last):
            if event["type"] == "CUSTOM" and event["name"] == "autobyteus.tool_started":
                break
        body_running(waited)
        assert server.post("/api/run", {"message": "again"})[0] == 409  # one run at a time
        assert server.post("/api/stop")[1] == {"stopped": True}
        end = server.events(last_event_id=last, until="RUN_FINISHED")[-1][1]
        assert end["outcome"] == {"type": "cancelled"}
        assert waited.read_text() == "cancelled"  # the tool was cut, not left running
        assert server.state()["running"] is None
    finally:
        assert server.stop() == 0


def test_a_page_decision_is_the_sessions_stored_decision(tmp_path):
    marker = tmp_path / "marker"
    team = purging_team(tmp_path, marker)
    store_path = tmp_path / "webteam.sessions.db"
    server = WebServer(team, "--session", "s1")
    try:
        assert server.post("/api/run", {"message": "purge"})[0] == 202
        _, waiting = until_waiting(server)
        call_id = waiting["call_id"]
        cli = subprocess.run([sys.executable, "-m", "autobyteus_like.cli", "approve", "s1",
                              call_id, "--store", str(store_path)],
                             capture_output=True, text=True, timeout=60)
        assert cli.returncode == 2 and "running in" in cli.stderr  # decide in the page
        second = subprocess.run([sys.executable, "-m", "autobyteus_like.cli", "serve",
                                 str(team), "--session", "s1", "--tools", TOOLS],
                                capture_output=True, text=True, timeout=60)
        assert second.returncode == 2 and "in use" in second.stderr, second.stderr
        assert "Traceback" not in second.stderr
        status, _ = server.post("/api/approve", {"tool_call_id": f"lead:{call_id}"})
        assert status == 200
        assert server.events(until="RUN_FINISHED")[-1][1]["result"] == "Purged once."
    finally:
        assert server.stop() == 0
    assert marker.read_text() == "purged\n"
    store = open_store(str(store_path))
    try:
        stored = store.find_call("s1", call_id)
        assert stored is not None and stored.state is CallState.SUCCEEDED
    finally:
        store.close()
    again = WebServer(team, "--session", "s1")  # opened again: the stored history is shown
    try:
        status, text = again.request("GET", "/api/history")
        assert status == 200
        import json

        history = json.loads(text)
        assert history["session"] == "s1"
        lead = history["members"]["lead"]
        assert [m["role"] for m in lead] == ["user", "assistant", "user", "assistant"]
        assert '"purge"' in lead[1]["content"] and lead[3]["content"] == "Purged once."
        assert '"content": "purged"' in lead[2]["content"]  # the result, as the model read it
    finally:
        assert again.stop() == 0


def test_a_session_left_waiting_by_the_command_line_goes_on_from_the_page(tmp_path):
    marker = tmp_path / "marker"
    team = purging_team(tmp_path, marker)
    detached = subprocess.run(
        [sys.executable, "-m", "autobyteus_like.cli", "run", str(team), "--tools", TOOLS,
         "--session", "s2", "-m", "purge", "--detach-on-approval"],
        capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert detached.returncode == 3, detached.stderr
    server = WebServer(team, "--session", "s2")
    try:
        assert server.state()["standing"] == "waiting"
        assert server.post("/api/run", {"resume": True})[0] == 202
        _, waiting = until_waiting(server)  # asked again, from the store
        assert waiting["name"] == "purge"
        assert server.post("/api/approve",
                           {"tool_call_id": waiting["tool_call_id"]})[0] == 200
        events = server.events(until="RUN_FINISHED")
        assert events[1][1]["value"]["resumed"] is True
        assert events[-1][1]["result"] == "Purged once."
        assert server.state()["standing"] == "done"
        status, _ = server.post("/api/run", {"resume": True})  # nothing left
        assert status == 202
        end = server.events(last_event_id=events[-1][0], until="RUN_ERROR")[-1][1]
        assert "nothing unfinished" in end["message"]
    finally:
        assert server.stop() == 0
    assert marker.read_text() == "purged\n"


def test_with_a_session_stop_ends_the_turn_in_the_store_and_the_next_run_is_fresh(tmp_path):
    waited = tmp_path / "waited"
    team = write_team(tmp_path, [
        {"name": "lead", "tool_format": "json", "tools": ["wait", "echo"],
         "limits": {"max_llm_calls": 1},
         "llm": {"provider": "scripted", "responses": [
             call("wait", seconds=60, marker=str(waited)), "Fresh."]}}])
    server = WebServer(team, "--session", "w1")
    try:
        assert server.post("/api/run", {"message": "wait"})[0] == 202
        for _, event in server.stream():
            if event["type"] == "CUSTOM" and event["name"] == "autobyteus.tool_started":
                break
        body_running(waited)
        assert server.post("/api/stop")[1] == {"stopped": True}
        end = server.events(until="RUN_FINISHED")
        assert end[-1][1]["outcome"] == {"type": "cancelled"}
        assert waited.read_text() == "cancelled"  # cut, and ended before the stop returned
        last = end[-1][0]
        assert server.post("/api/run", {"message": "again"})[0] == 202  # its own budget
        finished = server.events(last_event_id=last, until="RUN_FINISHED")[-1][1]
        assert finished.get("result") == "Fresh.", finished
    finally:
        assert server.stop() == 0
    assert_cut_then_fresh(tmp_path / "webteam.sessions.db", "w1", "the client cancelled the ask",
                          "again", "Fresh.")


def test_a_session_left_unfinished_refuses_a_message_until_abandoned_with_a_reason(tmp_path):
    team = waiting_team(tmp_path, ["Answered."])
    killed_mid_tool(team, "s1")
    server = WebServer(team, "--session", "s1")
    try:
        assert server.state()["unfinished"] == "unfinished"
        status, refused = server.post("/api/run", {"message": "hi"})
        assert (status, refused["error"]) == (409, (
            "session 's1' has an unfinished turn its last process left: resume it or abandon "
            "it (with a reason) before sending a new message"))
        assert server.post("/api/abandon", {"reason": ""})[0] == 400
        status, body = server.post("/api/abandon", {"reason": "gave up on it"})
        assert status == 200, body
        numbered = server.events(until="RUN_FINISHED")
        events = [event for _, event in numbered]
        assert [e["type"] for e in events] == ["RUN_STARTED", "CUSTOM", "CUSTOM", "RUN_FINISHED"]
        assert events[1]["value"]["abandon"] == "gave up on it"
        assert events[2]["name"] == "autobyteus.session_abandoned"
        assert server.state()["unfinished"] is None
        status, again = server.post("/api/abandon", {"reason": "twice"})
        assert (status, again["error"]) == (409, "the session has nothing unfinished to abandon")
        assert server.post("/api/run", {"message": "fresh"})[0] == 202
        last = server.events(last_event_id=numbered[-1][0], until="RUN_FINISHED")[-1][1]
        assert last.get("result") == "Answered.", last
    finally:
        assert server.stop() == 0
    assert_cut_then_fresh(tmp_path / "lefteam.sessions.db", "s1", "gave up on it", "fresh",
                          "Answered.")


def test_abandon_is_refused_without_a_session_and_while_a_run_goes_on(tmp_path):
    waited = tmp_path / "waited"
    team = write_team(tmp_path, [
        {"name": "lead", "tool_format": "json", "tools": ["wait"],
         "llm": {"provider": "scripted", "responses": [
             call("wait", seconds=60, marker=str(waited)), "never"]}}])
    server = WebServer(team)
    try:
        status, body = server.post("/api/abandon", {"reason": "why not"})
        assert (status, body["error"]) == (409, "there is no session whose work to abandon")
    finally:
        assert server.stop() == 0
    server = WebServer(team, "--session", "busy")
    try:
        assert server.post("/api/run", {"message": "wait"})[0] == 202
        status, body = server.post("/api/abandon", {"reason": "why not"})
        assert (status, body["error"]) == (
            409, "run 'run-1' is still going on; wait for it or stop it first")
        assert server.post("/api/stop")[1] == {"stopped": True}
    finally:
        assert server.stop() == 0


def test_a_decision_after_an_acknowledged_stop_is_refused_and_never_runs(tmp_path):
    marker = tmp_path / "marker"
    server = WebServer(purging_team(tmp_path, marker))
    try:
        status, started = server.post("/api/run", {"message": "purge"})
        _, waiting = until_waiting(server)
        assert server.post("/api/stop")[1] == {"stopped": True}
        for path in ("/api/approve", "/api/deny"):  # right after the stop's answer
            status, reply = server.post(path, {"tool_call_id": waiting["tool_call_id"]})
            assert status == 409, reply
            assert f"run {started['run_id']!r} was stopped" in reply["error"]
        events = server.events(until="RUN_FINISHED")
        assert events[-1][1]["outcome"]["type"] == "cancelled"
        assert not any(e["type"] == "CUSTOM" and e["name"] == "autobyteus.tool_started"
                       for _, e in events)
    finally:
        assert server.stop() == 0
    assert not marker.exists()  # the call never ran

"""A member asked as a tool, seen and steered from the web, in process (a real local team
behind ``WebTeam``): the callee's events name the call they answer (``metadata.parent``), and
its call that needs approval waits under its own address and is decided like any other."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest

from autobyteus_like.serving._team_host import TeamHost
from autobyteus_like.web import WebTeam
from tests.runtime.scripted_teams import call, calls, member, team_config
from tests.serving.team_tools import purge
from tests.web.test_web_team_decisions import drive, until_waiting


def events_of(web: WebTeam) -> list[dict]:
    frames = b"".join(web.log._frames).decode().split("\n\n")
    return [json.loads(line[6:]) for frame in frames for line in frame.splitlines()
            if line.startswith("data: ")]


def test_a_callees_calls_show_under_the_callers_call_and_are_decided_there(tmp_path: Path):
    marker = tmp_path / "marker"
    lead = member("lead", [calls(call("ask_clerk", request="purge it")), "Done."],
                  tools=["ask:clerk"])
    clerk = member("clerk", [call("purge", marker=str(marker)), "Purged."], tools=["purge"],
                   approval_policy="marked")
    host = TeamHost(team_config(lead, clerk), tools=[purge])
    seen: list[dict] = []

    async def body(web: WebTeam) -> None:
        web.start_run("go")
        who, call_id = await until_waiting(web)
        assert who.startswith("clerk@lead/")  # the fresh clerk answering the lead's call
        assert (await web.decide(who, call_id, True)).startswith("approved purge")
        with anyio.fail_after(30):
            async for frames in web.log.frames():
                if b'"type":"RUN_FINISHED"' in frames:
                    break
        seen.extend(events_of(web))

    drive(host, body)
    assert marker.read_text() == "purged\n"
    [ask] = [e for e in seen if e["type"] == "TOOL_CALL_START" and e["toolCallName"] == "ask_clerk"]
    parent = ask["toolCallId"]
    nested = [e for e in seen if (e.get("metadata") or {}).get("parent") == parent]
    names = {e["toolCallName"] for e in nested if e["type"] == "TOOL_CALL_START"}
    assert names == {"purge"}
    assert {e["metadata"]["callee"] for e in nested} == {"clerk"}
    assert any(e["type"] == "CUSTOM" and e["name"].endswith("approval_requested")
               and e["value"]["parent"] == parent for e in nested)
    [result] = [e for e in seen if e["type"] == "TOOL_CALL_RESULT"
                and e["toolCallId"] == parent]
    assert result["content"] == "Purged."
    assert seen[-1]["type"] == "RUN_FINISHED" and seen[-1]["result"] == "Done."


@pytest.mark.slow  # a real server and a real browser
def test_the_page_draws_a_callees_work_inside_the_callers_call(tmp_path: Path):
    from tests.web.browser import browser_page, launched_browser
    from tests.web.served_team import WebServer, write_team
    from tests.web.served_team import call as text_call

    marker = tmp_path / "marker"
    team = write_team(tmp_path, [
        {"name": "lead", "role": "plans", "tool_format": "json", "tools": ["ask:clerk"],
         "llm": {"provider": "scripted", "responses": [
             "Asking the clerk. " + text_call("ask_clerk", request="purge it"), "Done."]}},
        {"name": "clerk", "role": "purges", "tool_format": "json", "tools": ["purge"],
         "approval_policy": "marked",
         "llm": {"provider": "scripted", "responses": [
             text_call("purge", marker=str(marker)), "Purged."]}},
    ], name="nested")
    server = WebServer(team)
    try:
        with launched_browser() as browser, browser_page(browser) as page:
            page.goto(server.url)
            page.wait_for_selector("body[data-connected]")
            page.fill("#message", "go")
            page.click("#send")
            page.locator(".approval").wait_for()
            lead = page.locator(".panel[data-member=lead]")
            ask = lead.locator(".call").first
            nested = ask.locator(".panel.nested")  # inside the lead's call, not a panel of its own
            assert nested.locator("h3").inner_text().startswith("clerk (asked as a tool)")
            assert "waits for approval" in nested.locator(".call").first.inner_text()
            assert page.locator("#members > .panel").count() == 2  # lead and clerk only
            page.locator(".approval .approve").click()
            page.wait_for_selector("#run-state[data-state=finished]")
            assert nested.locator(".call .result").first.inner_text() == "purged"
            assert ask.locator(":scope > .result").inner_text() == "Purged."
            assert page.locator("#answer").inner_text() == "Done."
    finally:
        assert server.stop() == 0
    assert marker.read_text() == "purged\n"


def test_a_hand_over_is_shown_to_the_page_with_its_reason():
    """A handoff reaches the page as its own event (sender, receiver, reason, the call), and
    the receiver's answer is the run's result."""
    lead = member("lead", [call("transfer_to_clerk", reason="a clerk's matter")],
                  tools=[], handoffs=["clerk"])
    clerk = member("clerk", ["Filed."], tools=[])
    host = TeamHost(team_config(lead, clerk))
    seen: list[dict] = []

    async def body(web: WebTeam) -> None:
        web.start_run("file this")
        with anyio.fail_after(30):
            async for frames in web.log.frames():
                if b'"type":"RUN_FINISHED"' in frames:
                    break
        seen.extend(events_of(web))

    drive(host, body)
    [handed] = [e for e in seen if e["type"] == "CUSTOM" and e["name"].endswith("handed_over")]
    assert {k: handed["value"][k] for k in ("member", "sender", "receiver", "reason")} == {
        "member": "lead", "sender": "lead", "receiver": "clerk", "reason": "a clerk's matter"}
    [start] = [e for e in seen if e["type"] == "TOOL_CALL_START"
               and e["toolCallName"] == "transfer_to_clerk"]
    assert handed["value"]["tool_call_id"] == start["toolCallId"]
    assert seen[-1]["type"] == "RUN_FINISHED" and seen[-1]["result"] == "Filed."

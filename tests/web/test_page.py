"""The page in a real headless browser (Debian's chromium, driven by Playwright): a scripted
team's run watched and steered from it."""

from __future__ import annotations

import os
import socket
import subprocess
import sys

import pytest

from tests.serving.left_sessions import killed_mid_tool, waiting_team
from tests.web.browser import browser_page, launched_browser
from tests.web.served_team import TOOLS, WebServer, body_running, call, write_team

pytestmark = pytest.mark.slow  # a real server and a real browser


@pytest.fixture(scope="module")
def browser():
    """One chromium for the module's tests (each gets a fresh context of it)."""
    with launched_browser() as running:
        yield running


HOSTILE = '<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">'


@pytest.fixture
def team_server(tmp_path):
    marker, waited = tmp_path / "marker", tmp_path / "waited"
    team = write_team(tmp_path, [
        {"name": "lead", "role": "plans", "tool_format": "json",
         "tools": ["send_message_to", "wait"],
         "llm": {"provider": "scripted", "chunk_size": 3, "responses": [
             "Asking the coder. " + call("send_message_to", recipient_name="coder",
                                         content="please purge"),
             "Waiting for the coder.",
             "The coder said: " + HOSTILE,
             call("wait", seconds=60, marker=str(waited)), "never said"]}},
        {"name": "coder", "role": "writes code", "tool_format": "json",
         "tools": ["purge", "send_message_to"], "auto_execute_tools": False,
         "approval_policy": "marked",
         "llm": {"provider": "scripted", "chunk_size": 3, "responses": [
             "Purging. " + call("purge", marker=str(marker)),
             "Once more. " + call("purge", marker=str(marker)),
             call("send_message_to", recipient_name="lead",
                  content="<img src=x onerror=window.__pwned=3> done"),
             "Reported."]}},
    ], name="pagedemo")
    server = WebServer(team)
    yield server, marker, waited
    assert server.stop() == 0


def drawn_everything(page, server: WebServer) -> None:
    """Wait until the page has drawn every event the server has sent so far."""
    last = server.state()["last_event_id"]
    page.wait_for_function(f"() => Number(document.body.dataset.drawn || 0) >= {last}")


def test_watch_approve_deny_reload_and_stop_a_team(team_server, browser):
    server, marker, waited = team_server
    with browser_page(browser) as page:
        page.goto(server.url)
        page.wait_for_selector("body[data-connected]")
        assert page.locator(".panel").count() == 2
        page.fill("#message", "go")
        page.click("#send")
        card = page.locator(".approval")
        card.wait_for()
        lead, coder = page.locator(".panel[data-member=lead]"), page.locator(
            ".panel[data-member=coder]")
        assert "Asking the coder." in lead.inner_text()
        first = coder.locator(".call").first
        assert first.locator(".num").inner_text() == "#1"
        assert "waits for approval" in first.inner_text() and '"marker"' in first.inner_text()
        assert "message from lead: please purge" in coder.inner_text()

        page.reload()  # mid-run, a call waiting: everything comes back, once
        page.wait_for_selector("body[data-connected]")
        drawn_everything(page, server)
        assert page.evaluate("window.__teamPage.duplicates") == 0
        assert page.evaluate("window.__teamPage.events") == server.state()["last_event_id"]
        assert page.locator(".approval").count() == 1
        for call_id in page.eval_on_selector_all(".call", "els => els.map(e => e.dataset.callId)"):
            assert page.locator(f".call[data-call-id='{call_id}']").count() == 1
        assert lead.inner_text().count("Asking the coder.") == 1

        waiting_id = page.locator(".approval").get_attribute("data-call-id")
        page.locator(".approval .approve").click()
        page.locator(f".approval[data-call-id='{waiting_id}']").wait_for(state="detached")
        second = coder.locator(".call").nth(1)
        second.locator(".state", has_text="waits for approval").wait_for()
        assert first.locator(".result").inner_text() == "purged"
        assert first.locator(".state").inner_text() == "done, finished 2nd"  # after #1 of lead
        page.fill(".approval .reason", "not twice")
        page.locator(".approval .deny").click()
        page.wait_for_selector("#run-state[data-state=finished]")
        assert second.locator(".result").inner_text() == "DENIED: denied: not twice"
        assert second.get_attribute("data-outcome") == "failure"
        assert marker.read_text() == "purged\n"  # approved once, denied once

        # hostile text is shown as the characters the model and the tool wrote
        assert page.locator("#answer").inner_text() == "The coder said: " + HOSTILE
        assert "<img src=x onerror=window.__pwned=3> done" in lead.inner_text()
        assert page.evaluate("window.__pwned") is None
        assert page.locator("img").count() == 0 and page.locator("body script").count() == 1
        assert "LLM calls" in page.inner_text("#usage")

        page.fill("#message", "now wait")
        page.click("#send")
        lead.locator(".call .state", has_text="running").wait_for()
        body_running(waited)
        page.click("#stop")
        page.wait_for_selector("#run-state[data-state=stopped]")
        assert waited.read_text() == "cancelled"
        assert page.locator("#stop").is_disabled()

        response = page.goto(server.base + "/")  # the URL without its token
        assert response is not None and response.status == 403
        assert "token is needed" in page.inner_text("body")


def test_a_run_of_ten_thousand_events_stays_drawn_and_bounded(tmp_path, browser):
    prose = ("A long line of thought, streamed one character at a time. " * 200)[:9000]
    calls = " ".join(call("echo", text=f"item {n}") for n in range(160))
    team = write_team(tmp_path, [
        {"name": "lead", "tool_format": "json", "tools": ["echo"],
         "llm": {"provider": "scripted", "chunk_size": 1, "responses": [
             prose + " " + calls, "Done."]}}], name="bigrun")
    server = WebServer(team)
    try:
        with browser_page(browser) as page:
            page.goto(server.url)
            page.wait_for_selector("body[data-connected]")
            page.fill("#message", "go")
            page.click("#send")
            page.wait_for_selector("#run-state[data-state=finished]", timeout=120_000)
            drawn_everything(page, server)
            total = server.state()["last_event_id"]
            assert total >= 10_000
            assert page.evaluate("window.__teamPage.events") == total
            lead = page.locator(".panel[data-member=lead]")
            assert lead.locator(".entry").count() <= 150  # the newest entries, not all
            hidden = lead.locator(".hidden-count").inner_text()
            assert hidden.endswith("earlier entries not shown") and int(hidden.split()[0]) > 0
            last = lead.locator(".call").last
            assert last.locator(".num").inner_text() == "#160"
            assert last.locator(".result").inner_text() == "item 159"
            assert page.locator("#answer").inner_text() == "Done."
    finally:
        assert server.stop() == 0


def test_a_session_opened_again_shows_its_history_and_goes_on(tmp_path, browser):
    marker = tmp_path / "marker"
    team = write_team(tmp_path, [
        {"name": "lead", "tool_format": "json", "tools": ["purge"],
         "auto_execute_tools": False, "approval_policy": "marked",
         "llm": {"provider": "scripted", "responses": [
             "Purging <b>now</b>. " + call("purge", marker=str(marker)), "Purged."]}}],
        name="sessionpage")
    detached = subprocess.run(
        [sys.executable, "-m", "autobyteus_like.cli", "run", str(team), "--tools", TOOLS,
         "--session", "s1", "-m", "purge it", "--detach-on-approval"],
        capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert detached.returncode == 3, detached.stderr
    server = WebServer(team, "--session", "s1")
    try:
        with browser_page(browser) as page:
            page.goto(server.url)
            page.wait_for_selector("body[data-connected]")
            assert page.inner_text("#session") == "session s1"
            history = page.locator(".panel[data-member=lead] details.history")
            assert history.locator("summary").inner_text() == "stored history (2 messages)"
            history.locator("summary").click()
            assert "[user] purge it" in history.inner_text()
            assert "Purging <b>now</b>." in history.inner_text()  # as text
            resume = page.locator("#resume")
            assert resume.is_visible()
            assert "call waiting for a decision" in page.inner_text("#unfinished-text")
            resume.click()
            page.locator(".approval .approve").click()
            page.wait_for_selector("#run-state[data-state=finished]")
            assert page.inner_text("#answer") == "Purged."
            assert "the session goes on" in page.inner_text(".panel[data-member=lead]")
            assert resume.is_hidden()
    finally:
        assert server.stop() == 0
    assert marker.read_text() == "purged\n"


def test_an_unfinished_session_offers_resume_and_abandon_and_two_pages_follow(tmp_path, browser):
    """A run killed mid-tool left session s1 with an unfinished turn. The page says so and
    offers Resume and Abandon (with a reason); a message is refused until one is chosen. A
    second page on the same team sees the abandon and the next run."""
    team = waiting_team(tmp_path, ["Answered."])
    killed_mid_tool(team, "s1")
    server = WebServer(team, "--session", "s1")
    try:
        with browser_page(browser) as page:
            other = page.context.new_page()
            for tab in (page, other):
                tab.goto(server.url)
                tab.wait_for_selector("body[data-connected]")
                assert tab.locator("#unfinished").is_visible()
                assert tab.inner_text("#unfinished-text").startswith(
                    "This session has an unfinished turn")
            page.fill("#message", "hello")
            page.click("#send")
            page.wait_for_function("() => document.getElementById('notice').textContent")
            assert page.inner_text("#notice") == (
                "session 's1' has an unfinished turn its last process left: resume it or "
                "abandon it (with a reason) before sending a new message")
            page.click("#abandon")  # no reason yet: asked for one, nothing sent
            assert page.inner_text("#notice") == (
                "say why the unfinished work is abandoned (a reason)")
            assert server.state()["unfinished"] == "unfinished"
            page.fill("#abandon-reason", "gave up on it")
            page.click("#abandon")
            for tab in (page, other):  # both pages: the box goes, the panel says why
                tab.locator("#unfinished").wait_for(state="hidden")
                lead = tab.locator(".panel[data-member=lead]")
                lead.get_by_text("the unfinished work was abandoned: gave up on it").wait_for()
            other.fill("#message", "fresh")  # the other page sends the next message
            other.click("#send")
            for tab in (page, other):
                tab.wait_for_selector("#run-state[data-state=finished]")
                tab.locator("#answer").get_by_text("Answered.").wait_for()
            assert page.evaluate("window.__teamPage.duplicates") == 0
    finally:
        assert server.stop() == 0


def test_the_page_says_the_server_is_gone_and_reconnects_when_it_is_back(tmp_path, browser):
    team = write_team(tmp_path, [{"name": "lead", "llm": {"provider": "scripted",
                                                          "responses": ["hello again"]}}])
    with socket.socket() as probe:  # a port to come back on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    same = ("--http", f"127.0.0.1:{port}")
    env = {**os.environ, "AUTOBYTEUS_LIKE_WEB_TOKEN": "the-same-token-each-time"}
    server = WebServer(team, *same, env=env)
    with browser_page(browser) as page:
        page.goto(server.url)
        page.wait_for_selector("body[data-connected]")
        server.process.kill()  # the server dies
        server.stop()
        page.wait_for_selector("body[data-server=gone]")
        assert "server is gone" in page.inner_text("#notice")
        assert page.inner_text("#run-state") == "server gone"  # not "running" any more
        for control in ("#send", "#message", "#stop"):
            assert page.locator(control).is_disabled(), control
        again = WebServer(team, *same, env=env)
        try:  # back: a new server process, so the page starts afresh on it
            page.wait_for_selector("body[data-connected]:not([data-server])", timeout=60_000)
            assert page.locator("#send").is_enabled()
            page.fill("#message", "are you there?")
            page.click("#send")
            page.wait_for_selector("#run-state[data-state=finished]")
            assert page.locator("#answer").inner_text() == "hello again"
        finally:
            assert again.stop() == 0


def test_an_mcp_servers_question_is_a_card_answered_from_the_page(tmp_path, browser):
    from tests.web.test_web_elicitation import asking_web_team

    server = WebServer(asking_web_team(tmp_path))
    try:
        with browser_page(browser) as page:
            page.goto(server.url)
            page.wait_for_selector("body[data-connected]")
            page.fill("#message", "who am I?")
            page.click("#send")
            card = page.locator(".elicitation")
            card.wait_for()
            assert "MCP server ask" in card.inner_text() and "Who are you?" in card.inner_text()
            assert card.locator("input[name=age]").get_attribute("type") == "number"
            card.locator("input[name=name]").fill("G")  # too short for the schema: refused
            card.locator("button.accept").click()
            card.locator(".outcome", has_text="does not fit").wait_for()
            card.locator("input[name=name]").fill("Grace")
            card.locator("input[name=age]").fill("85")
            card.locator("button.accept").click()
            card.wait_for(state="detached")
            page.wait_for_selector("#run-state[data-state=finished]")
            result = page.locator(".panel[data-member=lead] .call .result").inner_text()
            assert "accept {'name': 'Grace', 'age': 85}" in result
    finally:
        assert server.stop() == 0


def test_a_members_working_set_is_shown_in_its_panel(tmp_path, browser):
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "plan.md").write_text("# Plan\nShip on Friday.\n")
    team = write_team(tmp_path, [
        {"name": "keeper", "role": "remembers", "tool_format": "json",
         "tools": ["memory.advise"], "sandbox": {"roots": [str(workspace)]},
         "llm": {"provider": "scripted", "responses": [
             call("memory.advise", hot=[{"path": "plan.md", "why": "the plan"}],
                  why="keep the plan at hand"), "Kept."]}}], name="memorydemo")
    server = WebServer(team, "--tools", "autobyteus_like.tools:builtin_tools")
    try:
        with browser_page(browser) as page:
            page.goto(server.url)
            page.wait_for_selector("body[data-connected]")
            page.fill("#message", "remember the plan")
            page.click("#send")
            page.wait_for_selector("#run-state[data-state=finished]")
            shown = page.locator(".panel[data-member=keeper] .working-set")
            assert shown.inner_text() == "working set: hot plan.md; cold -"
    finally:
        assert server.stop() == 0

"""Attacks on the session commands: hostile content in a transcript, odd names, stores that are
not stores or are busy, decisions for a session a live process holds, reasons no shell should
produce. Each defect found here was fixed; its test stays as the regression test."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from autobyteus_like import Agent, AgentConfig, ScriptedLLM, tool
from autobyteus_like.cli._main import main
from autobyteus_like.events import ApprovalRequested
from autobyteus_like.store import CallState, Session, open_store
from tests.store.test_resume import call


@tool
def echo(text: str) -> str:
    """Returns its text."""
    return text


@tool(requires_approval=True)
def guarded(x: int) -> int:
    """Needs a person's approval."""
    return x + 1


def stored_agent(store: Path, session: str, replies: list[str]) -> Agent:
    config = AgentConfig(name="a", llm=ScriptedLLM(replies, provider="anthropic"),
                         tools=["echo", "guarded"], auto_execute_tools=False,
                         approval_policy="marked")
    return Agent(config, tools=[echo, guarded], session=Session(session, store))


ESCAPES = "\x1b]0;owned\x07\x1b[2J\x1b[1A"
"""Set the terminal's title, clear the screen, move the cursor up: what a hostile model writes
to hide or forge lines of a transcript a person reads."""


def test_sessions_show_does_not_print_terminal_escapes_a_model_wrote(tmp_path, capsys):
    store = tmp_path / "x.sessions.db"
    agent = stored_agent(store, "s1", [f"all fine {ESCAPES}forged line"])
    with agent:
        agent.run("go", timeout=10)
    agent.session.close()
    assert main(["sessions", "show", "s1", "--store", str(store)]) == 0
    shown = capsys.readouterr().out
    assert "forged line" in shown
    assert "\x1b" not in shown and "\x07" not in shown


def test_tool_results_with_escapes_are_shown_escaped(tmp_path, capsys):
    """What held: a result's content is shown through repr, and the text format escapes it in
    the results message."""
    store = tmp_path / "x.sessions.db"
    agent = stored_agent(store, "s1", [call("echo", text="safe"), "done"])
    with agent:
        agent.run("go", timeout=10)
    agent.session.close()
    opened = open_store(store)
    try:
        [stored] = opened.calls("s1", "a")
        opened.set_call("s1", "a", stored.invocation_id, CallState.SUCCEEDED,
                        {**(stored.result or {}), "content": ESCAPES + "x"})
    finally:
        opened.close()
    assert main(["sessions", "show", "s1", "--store", str(store)]) == 0
    shown = capsys.readouterr().out
    assert "succeeded -> '\\x1b]0;owned\\x07" in shown


def test_a_session_name_with_quotes_and_sql_round_trips(tmp_path, capsys):
    store = tmp_path / "x.sessions.db"
    name = "it's \"odd\"; DROP TABLE sessions;-- é"
    agent = stored_agent(store, name, ["hello"])
    with agent:
        agent.run("go", timeout=10)
    agent.session.close()
    assert main(["sessions", "show", name, "--store", str(store)]) == 0
    assert f"session {name} (team a): done" in capsys.readouterr().out
    assert main(["sessions", "rm", name, "--store", str(store)]) == 0
    assert main(["sessions", "list", "--store", str(store)]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "no sessions"


@pytest.mark.parametrize("make, message", [
    (lambda p: p.write_bytes(b"not a database at all " * 100), "file is not a database"),
    (lambda p: p.mkdir(), "no session store at"),
])
def test_a_store_that_is_not_a_store_is_one_line(tmp_path, capsys, make, message):
    store = tmp_path / "x.sessions.db"
    make(store)
    assert main(["sessions", "list", "--store", str(store)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err and len(err.splitlines()) == 1


def test_run_with_a_store_below_a_file_is_one_line(software_team, tmp_path, capsys):
    (tmp_path / "plain").write_text("a file, not a folder")
    assert main(["run", *software_team, "-m", "hi", "--session", "s", "--store",
                 str(tmp_path / "plain" / "x.db")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: cannot open the session store") and "Traceback" not in err


def test_a_busy_store_is_read_and_a_write_to_it_is_one_line_not_a_traceback(
        tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("AUTOBYTEUS_LIKE_SQLITE_BUSY_TIMEOUT_S", "1")  # not the 10 s default
    store = tmp_path / "x.sessions.db"
    opened = open_store(store)
    opened.hold("s1", team="t", fingerprint="f", config={}, owner="gone:1:x")
    opened.release("s1", "gone:1:x", "done")
    opened.close()
    other = sqlite3.connect(store, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # e.g. a backup or a sqlite3 shell writing
    try:
        assert main(["sessions", "list", "--store", str(store)]) == 0  # reading needs no lock
        assert "s1\tteam t\tdone" in capsys.readouterr().out
        began = time.monotonic()
        code = main(["sessions", "rm", "s1", "--store", str(store)])  # waits 1 s, then says so
        waited = time.monotonic() - began
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert code == 2 and waited >= 1.0  # it waited out the timeout it was given
    err = capsys.readouterr().err
    assert err.startswith("error: the session store sqlite:///") and "database is locked" in err
    assert len(err.splitlines()) == 1


@pytest.mark.parametrize("value", ["soon", "-1", "nan"])
def test_a_busy_timeout_that_is_no_number_of_seconds_is_one_line(
        tmp_path, capsys, monkeypatch, value):
    store = tmp_path / "x.sessions.db"
    open_store(store).close()
    monkeypatch.setenv("AUTOBYTEUS_LIKE_SQLITE_BUSY_TIMEOUT_S", value)
    assert main(["sessions", "list", "--store", str(store)]) == 2
    err = capsys.readouterr().err
    assert err == ("error: $AUTOBYTEUS_LIKE_SQLITE_BUSY_TIMEOUT_S: expected a number of "
                   f"seconds, 0 or above, not {value!r}\n")


def test_deciding_for_a_session_a_live_process_holds_is_refused(tmp_path, capsys):
    store = tmp_path / "x.sessions.db"
    agent = stored_agent(store, "s1", [call("guarded", x=1), "done"])
    with agent:
        events = agent.events()
        agent.send("go")
        asked = next(e for e in iter(lambda: events.get(timeout=10), None)
                     if isinstance(e, ApprovalRequested))
        assert main(["approve", "s1", asked.invocation.id, "--store", str(store)]) == 2
        assert "is running in" in capsys.readouterr().err
        agent.deny(asked.invocation.id)
    agent.session.close()


REASON = "not today\nnor tomorrow\udcff"
"""A deny reason with a newline and a byte that is not UTF-8 (a shell hands Python such bytes
as lone surrogates, by surrogateescape)."""


def denied_and_resumed(software_team: list[str]) -> None:
    assert main(["run", *software_team, "-m", "Build hello.py", "--session", "s1",
                 "--detach-on-approval"]) == 3
    assert main(["deny", "s1", "call_write", "--reason", REASON]) == 0
    assert main(["run", *software_team, "--session", "s1"]) == 0


def test_a_deny_reason_with_newlines_and_undecodable_bytes_is_stored_exactly(software_team, capsys):
    denied_and_resumed(software_team)
    store = open_store("software_team.sessions.db")
    try:
        denied = store.find_call("s1", "call_write")
        [coder_saw] = [m.content for m in store.history("s1", "coder")
                       if m.role == "user" and "DENIED" in m.content]
    finally:
        store.close()
    assert denied is not None and denied.state is CallState.DENIED
    assert denied.result is not None
    assert denied.result["error"]["message"] == f"denied: {REASON}"
    assert "denied: not today\\nnor tomorrow\udcff" in coder_saw  # the LLM was told it


def test_sessions_show_survives_a_deny_reason_with_undecodable_bytes(software_team, capsys):
    denied_and_resumed(software_team)
    capsys.readouterr()
    assert main(["sessions", "show", "s1"]) == 0
    assert "DENIED: denied: not today" in capsys.readouterr().out


def _decision(verdict: str, store: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "autobyteus_like.cli", verdict, "s",
                             "call_write", "--store", store], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


@pytest.fixture(params=["sqlite", "postgres"])
def decided_store(request, software_team):
    if request.param == "sqlite":
        return str(Path("software_team.sessions.db").resolve())
    return request.getfixturevalue("postgres_server").new_database()


@pytest.mark.slow
@pytest.mark.parametrize("attempt", range(3))
def test_approve_and_deny_racing_on_one_call_one_wins(software_team, decided_store, capsys,
                                                      attempt):
    store = decided_store
    assert main(["run", *software_team, "-m", "Build hello.py", "--session", "s",
                 "--detach-on-approval", "--store", store]) == 3
    capsys.readouterr()
    approve, deny = _decision("approve", store), _decision("deny", store)  # at once
    outcomes = {"approved": approve.communicate(timeout=60), "denied": deny.communicate(timeout=60)}
    codes = {"approved": approve.returncode, "denied": deny.returncode}
    assert sorted(codes.values()) == [0, 2], (codes, outcomes)
    winner = next(verdict for verdict, code in codes.items() if code == 0)
    loser = next(verdict for verdict, code in codes.items() if code == 2)
    assert outcomes[winner][0].startswith(f"{winner} write_file (call_write)")
    lines = outcomes[loser][1].splitlines()
    assert lines == [f"error: call 'call_write' of session 's' was already decided: {winner}"]
    opened = open_store(store)
    try:
        call = opened.find_call("s", "call_write")
        assert call is not None and call.state.value == winner
        assert (call.result is None) == (winner == "approved")
    finally:
        opened.close()


@pytest.mark.slow
@pytest.mark.parametrize("attempt", range(3))
def test_two_approvals_racing_on_one_call_one_wins(software_team, decided_store, capsys,
                                                   attempt):
    store = decided_store
    assert main(["run", *software_team, "-m", "Build hello.py", "--session", "s",
                 "--detach-on-approval", "--store", store]) == 3
    capsys.readouterr()
    racing = [_decision("approve", store), _decision("approve", store)]  # at once
    outcomes = [process.communicate(timeout=60) for process in racing]
    codes = sorted(process.returncode for process in racing)
    assert codes == [0, 2], outcomes
    outs = sorted(out for out, _ in outcomes)
    assert outs[1].startswith("approved write_file (call_write)"), outcomes
    errors = sorted(err for _, err in outcomes)
    assert errors[1].splitlines() == [
        "error: call 'call_write' of session 's' was already decided: approved"], outcomes
    opened = open_store(store)
    try:
        call = opened.find_call("s", "call_write")
        assert call is not None and call.state is CallState.APPROVED and call.result is None
        assert opened.session("s").status == opened.standing("s") == "unfinished"
    finally:
        opened.close()


@pytest.mark.slow
@pytest.mark.parametrize("attempt", range(4))
def test_an_approval_racing_a_resume_either_lands_before_it_or_is_refused(
        software_team, decided_store, capsys, attempt):
    """``approve`` while ``run --session`` takes the session: the approval is stored before
    the run reads the call (it runs, once, and the run finishes), or it is refused while the
    run holds the session (the call still waits; the run stops for it), or it lands after the
    run gave the session up (the next run goes on). Never an approval reported that was lost,
    and the session's status is its standing whichever wins."""
    store = decided_store
    assert main(["run", *software_team, "-m", "Build hello.py", "--session", "s",
                 "--detach-on-approval", "--store", store]) == 3
    capsys.readouterr()
    resume = subprocess.Popen([sys.executable, "-m", "autobyteus_like.cli", "run", *software_team,
                               "--session", "s", "--detach-on-approval", "--store", store],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    approve = _decision("approve", store)
    resumed, approved = resume.communicate(timeout=60), approve.communicate(timeout=60)
    both = (resume.returncode, resumed, approve.returncode, approved)
    opened = open_store(store)
    try:
        call = opened.find_call("s", "call_write")
        assert call is not None
        status, standing = opened.session("s").status, opened.standing("s")
    finally:
        opened.close()
    assert status == standing, both  # whichever wins, the status says where it stands
    if resume.returncode == 0:  # the approval was stored before the run read the call
        assert approve.returncode == 0, both
        assert approved[0].startswith("approved write_file (call_write)"), both
        assert "Done: the coder wrote hello.py" in resumed[0], both
        assert call.state is CallState.SUCCEEDED and standing == "done", both
        return
    assert resume.returncode == 3, both  # the run found the call waiting and stopped for it
    if approve.returncode == 0:  # ... and gave the session up before the approval came
        assert approved[0].startswith("approved write_file (call_write)"), both
        assert call.state is CallState.APPROVED and standing == "unfinished", both
    else:  # ... while it held the session: the approval is refused, the call still waits
        assert approve.returncode == 2, both
        assert approved[1].splitlines()[0].startswith("error: session 's' is running in "), both
        assert call.state is CallState.WAITING_APPROVAL and standing == "waiting", both


def _read_until(fd: int, marker: str, seconds: float = 60.0) -> str:
    """What a process wrote to ``fd`` until ``marker`` appears (a prompt ends in no newline)."""
    import select
    import time

    seen = b""
    deadline = time.monotonic() + seconds
    while marker.encode() not in seen:
        left = deadline - time.monotonic()
        assert left > 0, f"no {marker!r} within {seconds} s: {seen.decode(errors='replace')}"
        ready, _, _ = select.select([fd], [], [], left)
        if ready:
            chunk = os.read(fd, 65536)
            assert chunk, f"ended before {marker!r}: {seen.decode(errors='replace')}"
            seen += chunk
    return seen.decode(errors="replace")


@pytest.mark.slow
def _writable(store: str) -> bool:
    """Whether a writer can take ``store`` now (a PostgreSQL store is not locked whole)."""
    if "://" in store:
        return True
    connection = sqlite3.connect(store, timeout=0.2)
    try:
        connection.execute("BEGIN IMMEDIATE")
        connection.rollback()
        return True
    except sqlite3.OperationalError:  # database is locked
        return False
    finally:
        connection.close()


def test_a_holder_paused_at_its_prompt_past_its_lease_cannot_overrule_a_decision(
        software_team, decided_store):
    """Two terminals: the run asks its person about a call and is paused (SIGSTOP) past its
    lease; from another terminal the call is denied (the lease is over, so that is allowed).
    Let go, the paused run is asked and answers yes: that answer must not run a call the store
    holds as denied. The decision took the session over, so the paused run's writes are
    refused: it stops with one SessionLostError line, and the call stays denied."""
    import pty
    import time

    from tests.store.test_fencing import _stopped

    store = decided_store
    terminal, typed = pty.openpty()
    run = subprocess.Popen(
        [sys.executable, "-m", "autobyteus_like.cli", "run", *software_team, "-m",
         "Build hello.py", "--session", "s", "--store", store],
        stdin=typed, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env={**os.environ, "AUTOBYTEUS_LIKE_LEASE_S": "0.6", "PYTHONUNBUFFERED": "1",
             "COLUMNS": "200"})
    os.close(typed)
    assert run.stdout is not None
    try:
        _read_until(run.stdout.fileno(), "Approve")  # the run asks about write_file
        deadline = time.monotonic() + 30
        while True:  # paused, but not inside a write (its lease's heartbeat): SQLite would
            run.send_signal(signal.SIGSTOP)  # stay locked to every other writer for good
            while not _stopped(run.pid):  # another process's state: poll it
                assert time.monotonic() < deadline
                time.sleep(0.02)
            if _writable(store):
                break
            run.send_signal(signal.SIGCONT)
            assert time.monotonic() < deadline
            time.sleep(0.05)
        watcher = open_store(store)
        try:
            while watcher.is_held("s") is not None:  # the paused run's lease runs out
                assert time.monotonic() < deadline
                time.sleep(0.05)
        finally:
            watcher.close()
        deny = _decision("deny", store)
        decided = deny.communicate(timeout=60)
        assert deny.returncode == 0 and decided[0].startswith("denied write_file"), decided
    finally:
        run.send_signal(signal.SIGCONT)
    os.write(terminal, b"y\n")  # the paused person says yes, too late
    out, err = (text.decode(errors="replace") for text in run.communicate(timeout=60))
    os.close(terminal)
    assert run.returncode == 2, out + err
    lost = [line for line in err.splitlines()
            if "session 's' is no longer held by this process" in line]
    assert len(lost) == 1, err
    assert "Traceback" not in err
    opened = open_store(store)
    try:
        call = opened.find_call("s", "call_write")
        assert call is not None and call.state is CallState.DENIED, call
        info = opened.session("s")
        assert info is not None and info.owner is None
    finally:
        opened.close()

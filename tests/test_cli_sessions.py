"""The command line on durable sessions: run --session, resume, --detach-on-approval with
approve/deny from another command, sessions list|show|rm, two processes on one session, and a
clear line for each mistake."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from autobyteus_like.cli._main import main


def test_detach_approve_and_resume_finish_the_run(software_team, capsys):
    code = main(["run", *software_team, "--message", "Build hello.py", "--session", "s1",
                 "--detach-on-approval", "--json"])
    err = capsys.readouterr().err
    assert code == 3
    assert "waiting for approval: coder write_file call_write" in err
    assert "autobyteus-like approve s1 call_write" in err
    assert Path("software_team.sessions.db").is_file()  # beside the team file
    assert main(["sessions", "list"]) == 0
    assert "s1\tteam software_team\twaiting" in capsys.readouterr().out
    assert main(["approve", "s1", "call_write"]) == 0
    assert "approved write_file (call_write) for coder" in capsys.readouterr().out
    assert main(["run", *software_team, "--session", "s1"]) == 0
    out = capsys.readouterr().out
    assert "answer: Done: the coder wrote hello.py" in out
    assert main(["sessions", "show", "s1"]) == 0
    shown = capsys.readouterr().out
    assert "call call_write write_file: succeeded -> 'wrote 21 characters to hello.py'" in shown
    assert "coder -> lead: answered" in shown and "user -> lead: answered" in shown
    assert main(["sessions", "list"]) == 0
    assert "\tdone\t" in capsys.readouterr().out
    assert main(["run", *software_team, "--session", "s1"]) == 0  # finished: its answer again
    assert "answer: Done: the coder wrote hello.py" in capsys.readouterr().out
    assert main(["sessions", "rm", "s1"]) == 0
    assert main(["sessions", "list"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "no sessions"


def test_resuming_a_finished_session_shows_its_answer_every_time(software_team, capsys):
    assert main(["run", *software_team, "-m", "Build hello.py", "--session", "s3", "-y"]) == 0
    capsys.readouterr()
    for _ in range(2):  # idempotent: nothing runs again
        assert main(["run", *software_team, "--session", "s3", "--json"]) == 0
        lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
        summary = lines[-1]
        assert summary["type"] == "RunSummary" and summary["finished"] is True
        assert summary["answer"].startswith("Done: the coder wrote hello.py")
        assert not any(line["type"] == "LLMRequestStarted" for line in lines)
    assert main(["run", *software_team, "--session", "s3", "-m", "And a test?", "-y"]) == 1
    assert "ran out of responses" in capsys.readouterr().err  # --message adds a turn


def test_deny_from_the_command_line_reaches_the_llm(software_team, capsys):
    assert main(["run", *software_team, "-m", "Build hello.py", "--session", "s2",
                 "--detach-on-approval"]) == 3
    assert main(["deny", "s2", "call_write", "--reason", "not today"]) == 0
    assert main(["run", *software_team, "--session", "s2"]) == 0
    capsys.readouterr()
    assert main(["sessions", "show", "s2"]) == 0
    shown = capsys.readouterr().out
    assert "call call_write write_file: denied -> DENIED: denied: not today" in shown
    # the coder's next request carried the refusal
    assert 'status="failure"' in shown or "DENIED" in shown.split("== coder ==")[1]


@pytest.mark.parametrize(("argv", "message"), [
    (["run", "T", "--session", "nope"], "no session named 'nope'"),
    (["run", "T"], "run needs --message (or --session NAME to resume a session)"),
    (["run", "T", "-m", "x", "--detach-on-approval"], "--detach-on-approval needs --session"),
    (["approve", "nope", "c1"], "no session named 'nope'"),
])
def test_mistakes_are_one_line_and_exit_2(software_team, capsys, argv, message):
    assert main(["run", *software_team, "-m", "Build hello.py", "--session", "s3",
                 "--detach-on-approval"]) == 3
    capsys.readouterr()
    argv = [software_team[0] if a == "T" else a for a in argv]
    if argv[0] == "run":
        argv += software_team[1:]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err and "Traceback" not in err


def test_deciding_a_call_that_does_not_wait_lists_the_ones_that_do(software_team, capsys):
    assert main(["run", *software_team, "-m", "Build hello.py", "--session", "s4",
                 "--detach-on-approval"]) == 3
    capsys.readouterr()
    assert main(["approve", "s4", "call_count"]) == 2
    err = capsys.readouterr().err
    assert "call (succeeded), not waiting: 'call_count'" in err
    assert "waiting for approval: call_write (coder: write_file)" in err


def test_the_store_named_in_the_yaml_is_used(software_team, capsys, tmp_path):
    text = Path("software_team.yaml").read_text()
    Path("software_team.yaml").write_text(text.replace("coordinator: lead",
                                                       "coordinator: lead\nstore: state/s.db"))
    (tmp_path / "state").mkdir()
    assert main(["run", *software_team, "-m", "Build hello.py", "--session", "s5", "--yes"]) == 0
    assert (tmp_path / "state" / "s.db").is_file()
    assert not Path("software_team.sessions.db").exists()
    assert main(["sessions", "list", "--team", "software_team.yaml"]) == 0
    assert "s5\tteam software_team\tdone" in capsys.readouterr().out


BLOCKING_TOOLS = '''
import time
from pathlib import Path
from autobyteus_like import ToolRegistry, tool

def make_tools():
    @tool
    def wait_for_flag(path: str) -> str:
        """Waits until the file exists."""
        Path("started").touch()
        while not Path(path).exists():  # the other process's signal; no event crosses processes
            time.sleep(0.02)
        return "flag seen"
    return ToolRegistry([wait_for_flag])
'''

BLOCKING_TEAM = '''
name: solo
coordinator: worker
members:
  - name: worker
    llm:
      provider: scripted
      imitates: anthropic
      responses:
        - '<tool name="wait_for_flag"><arguments><arg name="path">go</arg></arguments></tool>'
        - finished
    tools: [wait_for_flag]
'''


def test_two_processes_on_one_session_one_wins_the_other_is_told(tmp_path):
    (tmp_path / "tools.py").write_text(textwrap.dedent(BLOCKING_TOOLS))
    (tmp_path / "solo.yaml").write_text(BLOCKING_TEAM)
    command = [sys.executable, "-m", "autobyteus_like.cli", "run", "solo.yaml", "--tools",
               "tools.py:make_tools", "--session", "shared", "-m", "go"]
    first = subprocess.Popen(command, cwd=tmp_path, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    try:
        deadline = 60.0
        import time

        end = time.monotonic() + deadline
        while not (tmp_path / "started").exists():  # no event crosses the process boundary
            assert first.poll() is None, first.communicate()
            assert time.monotonic() < end
            time.sleep(0.02)
        second = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True,
                                timeout=60)
        assert second.returncode == 2
        assert second.stderr.startswith("error: session 'shared' is in use by ")
        assert len(second.stderr.splitlines()) == 1
        (tmp_path / "go").touch()
        out, err = first.communicate(timeout=60)
        assert first.returncode == 0, err
        assert "answer: finished" in out
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()

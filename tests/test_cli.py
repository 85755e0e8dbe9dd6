"""The command line on the shipped examples: exit codes, JSON output, approvals, errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from autobyteus_like.cli._main import main

ROOT = Path(__file__).parent.parent
EXAMPLES = ROOT / "examples"
TOOLS = f"{EXAMPLES / 'example_tools.py'}:make_tools"


def run_json(capsys, *args: str) -> tuple[int, list[dict]]:
    code = main(["run", *args, "--tools", TOOLS, "--json"])
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    return code, lines


def test_software_team_with_yes_approves_and_finishes(capsys):
    code, lines = run_json(capsys, str(EXAMPLES / "software_team.yaml"), "-m", "Build hello.py",
                           "--yes")
    assert code == 0
    summary = lines[-1]
    assert summary["type"] == "RunSummary" and summary["error"] is None
    assert summary["answer"].startswith("Done: the coder wrote hello.py")
    assert summary["messages"] == 3
    assert summary["agents"]["coder"]["tool_calls"] == 3
    assert summary["agents"]["coder"]["llm_s"] > 0 and summary["agents"]["coder"]["tools_s"] > 0
    results = [e["result"] for e in lines if e["type"] == "ToolResultReceived"]
    written = next(r for r in results if r["tool_name"] == "write_file")
    assert written["content"] == "wrote 21 characters to hello.py"
    assert any(e["type"] == "ApprovalRequested" and e["agent"] == "coder" for e in lines)


def test_without_a_terminal_or_yes_calls_are_denied_with_a_reason(capsys):
    code, lines = run_json(capsys, str(EXAMPLES / "software_team.yaml"), "-m", "Build hello.py")
    assert code == 0  # the scripted coder carries on; the denial is in its results
    denied = next(e["result"] for e in lines if e["type"] == "ToolResultReceived"
                  and e["result"]["status"] == "failure")
    assert denied["error"]["code"] == "DENIED"
    assert "no terminal to ask for approval; run with --yes" in denied["error"]["message"]


def test_research_team_runs_with_execute_and_tool_call_formats(capsys):
    code, lines = run_json(capsys, str(EXAMPLES / "research_team.yaml"), "-m", "Summarise")
    assert code == 0
    assert lines[-1]["answer"] == "Summary: a.txt has 3 words and b.txt has 5."


def test_the_live_view_shows_the_run(capsys):
    code = main(["run", str(EXAMPLES / "software_team.yaml"), "-m", "go", "--tools", TOOLS, "-y"])
    out = capsys.readouterr().out
    assert code == 0
    assert "calls write_file" in out and "-> coder: Write hello.py" in out
    assert "run summary" in out and "answer: Done: the coder wrote hello.py" in out


def test_validate_and_its_errors(capsys, tmp_path):
    assert main(["validate", str(EXAMPLES / "research_team.yaml"), "--tools", TOOLS]) == 0
    assert "valid team 'research_team'; coordinator planner; members: planner (execute), " \
           "analyst (tool_call)" in capsys.readouterr().out
    assert main(["validate", str(EXAMPLES / "research_team.yaml")]) == 2
    err = capsys.readouterr().err
    assert "research_team.yaml: members[0].tools[0]: unknown tool 'write_file'" in err
    assert main(["run", str(tmp_path / "nope.yaml"), "-m", "x"]) == 2
    assert "nope.yaml: cannot read the file" in capsys.readouterr().err
    assert main(["validate", str(EXAMPLES / "research_team.yaml"), "--tools", "x.py:y"]) == 2
    assert "--tools 'x.py:y': no file x.py" in capsys.readouterr().err


def test_a_failing_coordinator_exits_1(capsys, tmp_path):
    team = tmp_path / "t.yaml"
    team.write_text("name: t\ncoordinator: a\nmembers:\n  - name: a\n"
                    "    llm: {provider: scripted, responses: []}\n")
    code, lines = run_json(capsys, str(team), "-m", "hi")
    assert code == 1 and "ran out of responses" in lines[-1]["error"]


def test_the_installed_command_and_help():
    command = str(Path(sys.executable).parent / "autobyteus-like")
    out = subprocess.run([command, "run", "--help"], capture_output=True, text=True, check=True)
    assert "--message" in out.stdout and "--yes" in out.stdout
    bad = subprocess.run([command], capture_output=True, text=True)
    assert bad.returncode == 2 and "COMMAND" in bad.stderr


def test_the_ollama_example_is_a_valid_team(capsys):
    assert main(["validate", str(EXAMPLES / "ollama_team.yaml"), "--tools", TOOLS]) == 0
    assert "members: lead (native), coder (json)" in capsys.readouterr().out


def test_tools_from_several_sources_including_the_builtins(capsys, tmp_path):
    team = tmp_path / "t.yaml"
    team.write_text("name: t\ncoordinator: a\nmembers:\n  - name: a\n"
                    "    tools: [fs.read, word_count]\n"
                    "    llm: {provider: scripted, responses: [hi]}\n")
    builtins = "autobyteus_like.tools:builtin_tools"
    assert main(["validate", str(team), "--tools", TOOLS, "--tools", builtins]) == 0
    assert main(["validate", str(team), "--tools", TOOLS]) == 2
    assert "unknown tool 'fs.read'" in capsys.readouterr().err
    assert main(["validate", str(team), "--tools", TOOLS, "--tools", TOOLS]) == 2
    assert "a tool named 'write_file' is already registered" in capsys.readouterr().err


def test_approvals_are_asked_of_the_person_at_the_terminal(tmp_path):
    """The real command in a pseudo-terminal: it asks, we deny with a reason."""
    import os
    import pty
    import re
    import select
    import time

    main_fd, child_fd = pty.openpty()
    command = [str(Path(sys.executable).parent / "autobyteus-like"), "run",
               str(EXAMPLES / "software_team.yaml"), "--tools", TOOLS, "-m", "Build hello.py"]
    process = subprocess.Popen(command, stdin=child_fd, stdout=child_fd, stderr=child_fd,
                               env={**os.environ, "COLUMNS": "200", "TERM": "xterm"})
    os.close(child_fd)
    seen, answers = "", [("[y/n]", "n\n"), ("Reason", "not in this sprint\n")]
    deadline = time.monotonic() + 60
    try:
        while process.poll() is None and time.monotonic() < deadline:
            ready, _, _ = select.select([main_fd], [], [], 0.5)
            if ready:
                try:
                    seen += os.read(main_fd, 4096).decode(errors="replace")
                except OSError:
                    break
            text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", seen)
            if answers and answers[0][0] in text.split("waits for approval", 1)[-1]:
                os.write(main_fd, answers.pop(0)[1].encode())
        process.wait(timeout=30)
    finally:
        os.close(main_fd)
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", seen)
    assert "Approve coder: write_file" in text
    assert "write_file failed: DENIED: denied: not in this sprint" in text
    assert process.returncode == 0


def test_ctrl_d_at_the_approval_prompt_denies_without_a_traceback(tmp_path):
    import os
    import pty
    import re
    import select
    import time

    main_fd, child_fd = pty.openpty()
    command = [str(Path(sys.executable).parent / "autobyteus-like"), "run",
               str(EXAMPLES / "software_team.yaml"), "--tools", TOOLS, "-m", "Build hello.py"]
    process = subprocess.Popen(command, stdin=child_fd, stdout=child_fd, stderr=child_fd,
                               env={**os.environ, "COLUMNS": "200", "TERM": "xterm"})
    os.close(child_fd)
    seen, sent = "", False
    deadline = time.monotonic() + 60
    try:
        while process.poll() is None and time.monotonic() < deadline:
            ready, _, _ = select.select([main_fd], [], [], 0.5)
            if ready:
                try:
                    seen += os.read(main_fd, 4096).decode(errors="replace")
                except OSError:
                    break
            if not sent and "[y/n]" in seen.split("waits for approval", 1)[-1]:
                os.write(main_fd, b"\x04")  # Ctrl-D: end of input
                sent = True
        process.wait(timeout=30)
    finally:
        os.close(main_fd)
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", seen)
    assert sent and "Traceback" not in text
    assert "no answer at the terminal (the input ended)" in text
    assert process.returncode == 0


def test_a_tool_entry_that_is_not_a_tool_is_a_located_config_error(capsys, tmp_path):
    team = tmp_path / "t.yaml"
    team.write_text("name: t\ncoordinator: a\nmembers:\n  - name: a\n    llm: {provider: scripted, "
                    "responses: [hi]}\n    tools: [1]\n")
    assert main(["validate", str(team)]) == 2
    err = capsys.readouterr().err
    assert err == (f"error: {team}: members[0].tools[0]: expected a tool or a tool's name, got int"
                   " (not a tool: 1)\n")


def test_debug_may_follow_the_subcommand_and_shows_the_traceback(capsys, tmp_path):
    team = tmp_path / "t.yaml"
    team.write_text("name: t\ncoordinator: a\nmembers: []\n")
    assert main(["validate", str(team), "--debug"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" in err and err.splitlines()[-1].startswith("error: ")


def test_a_timeout_beyond_what_the_clock_counts_is_refused_in_one_line(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["run", str(EXAMPLES / "software_team.yaml"), "--tools", TOOLS, "-m", "hi",
              "--timeout", "1e300"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "argument --timeout: at most 3.1536e+07 seconds (a year): '1e300'" in err
    assert "Traceback" not in err


def test_a_tools_function_returning_none_is_named(capsys, tmp_path):
    (tmp_path / "empty.py").write_text("def make():\n    return None\n")
    assert main(["validate", str(EXAMPLES / "software_team.yaml"), "--tools",
                 f"{tmp_path / 'empty.py'}:make"]) == 2
    assert "make() returned None; return a ToolRegistry or a list of tools" in (
        capsys.readouterr().err)

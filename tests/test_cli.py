"""The command line on the shipped examples: exit codes, JSON output, approvals, errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from autobyteus_like.cli import main

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

"""The command line enforces ``requires_approval`` under default settings: a marked call is
asked at the terminal, approved by ``--yes``, stops a ``--session`` run (exit 3) when nobody is
there to ask, and is denied (its body never runs) without a session; ``validate`` says which
tools will wait."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from autobyteus_like.cli._main import main

CALL = json.dumps({"name": "launch", "arguments": {"target": "moon"}})


@pytest.fixture
def team(tmp_path: Path) -> list[str]:
    """A one-member team (default approval settings) whose tool marks what it did in a file."""
    (tmp_path / "launch_tools.py").write_text(
        "from pathlib import Path\n"
        "from autobyteus_like import tool\n\n\n"
        "@tool(requires_approval=True)\n"
        "def launch(target: str) -> str:\n"
        '    """Launch at a target."""\n'
        f"    Path({str(tmp_path / 'launched')!r}).write_text(target)\n"
        '    return "launched"\n')
    (tmp_path / "team.yaml").write_text(yaml.safe_dump({
        "name": "t", "coordinator": "pilot",
        "members": [{"name": "pilot", "tool_format": "json", "tools": ["launch"],
                     "llm": {"provider": "scripted", "responses": [CALL, "over"]}}]}))
    return [str(tmp_path / "team.yaml"), "--tools", f"{tmp_path / 'launch_tools.py'}:launch"]


def test_without_a_terminal_a_marked_call_is_denied_and_never_runs(team, tmp_path, capsys):
    assert main(["run", *team, "-m", "go", "--json"]) == 0
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert any(e["type"] == "ApprovalRequested" for e in events)
    [result] = [e["result"] for e in events if e["type"] == "ToolResultReceived"]
    assert result["error"]["code"] == "DENIED"
    assert "needs a person's approval" in result["error"]["message"]
    assert not (tmp_path / "launched").exists()


def test_under_a_session_without_a_terminal_the_run_stops_for_a_person(team, tmp_path, capsys):
    store = str(tmp_path / "s.db")
    assert main(["run", *team, "-m", "go", "--session", "s", "--store", store]) == 3
    err = capsys.readouterr().err
    assert "waiting for approval: pilot launch" in err
    assert "autobyteus-like approve s " in err and "stopped to wait for a person" in err
    assert not (tmp_path / "launched").exists()


def test_yes_approves_the_marked_call(team, tmp_path, capsys):
    assert main(["run", *team, "-m", "go", "--yes"]) == 0
    assert (tmp_path / "launched").read_text() == "moon"


def test_validate_is_valid_and_warns_which_tools_will_wait(team, capsys):
    assert main(["validate", *team]) == 0
    captured = capsys.readouterr()
    assert "valid team 't'" in captured.out
    assert "warning: member 'pilot': calls to launch will wait for approval" in captured.err


def test_the_approve_hint_names_the_whole_command(team, tmp_path, capsys):
    store = str(tmp_path / "s.db")
    assert main(["run", *team, "-m", "go", "--session", "s", "--store", store]) == 3
    err = capsys.readouterr().err
    assert f"--tools {team[2]} --store {store}" in err  # the run's own resume command
    call_id = err.split("autobyteus-like approve s ", 1)[1].split()[0]
    assert main(["approve", "s", call_id, "--store", store]) == 0
    said = " ".join(capsys.readouterr().out.split())
    assert (f"go on with `autobyteus-like run TEAM.yaml --session s --store {store} --tools ...`"
            in said)
    assert main(["run", *team, "--session", "s", "--store", store]) == 0
    assert (tmp_path / "launched").read_text() == "moon"
    # the summary's figures add up with its rows: the call before the resume is said (#35)
    summary = " ".join(capsys.readouterr().out.split())
    assert "2 LLM calls (1 before this process resumed the run), 1 tool calls" in summary

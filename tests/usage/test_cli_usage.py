"""The command line: usage in the summary and in ``--json``, a crossed limit as exit code 1
with one clear line, and ``--trace console`` spans on stderr."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from autobyteus_like.cli._main import main

SEND = json.dumps({"name": "send_message_to",
                   "arguments": {"recipient_name": "helper", "content": "help"}})


def team_file(tmp_path: Path, limits: str = "") -> Path:
    path = tmp_path / "team.yaml"
    path.write_text(f"""
name: t
coordinator: lead
{limits}
members:
  - name: lead
    tool_format: json
    tools: [send_message_to]
    llm: {{provider: scripted, responses: [{json.dumps(SEND + SEND)}, "asked", "all done"]}}
  - name: helper
    tool_format: json
    llm: {{provider: scripted, responses: ["helped"]}}
""")
    return path


def test_a_crossed_limit_ends_the_run_with_exit_code_1_and_one_line(tmp_path, capsys):
    path = team_file(tmp_path, "limits: {max_tool_calls: 1}")
    assert main(["run", str(path), "-m", "go", "--json"]) == 1
    captured = capsys.readouterr()
    assert captured.err.splitlines() == [
        "error: usage limit max_tool_calls=1 of team 't' reached: 1 made, the next was not; "
        "the run was ended"]
    summary = json.loads(captured.out.splitlines()[-1])
    assert summary["type"] == "RunSummary"
    assert summary["usage"]["run"]["tool_calls"] == 1  # the refused second call never ran


def test_the_json_summary_and_the_table_show_usage_and_unknown_cost(tmp_path, capsys):
    path = team_file(tmp_path)
    assert main(["run", str(path), "-m", "go", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out.splitlines()[-1])
    usage = summary["usage"]
    assert usage["run"]["llm_calls"] == 5  # lead 3, helper twice (two messages)
    assert usage["run"]["cost_usd"] == "unknown"  # a scripted model has no price
    assert usage["members"]["helper"]["llm_calls"] == 2
    assert usage["run"]["input_tokens"] == "unknown"  # a scripted model reports no usage
    assert usage["run"]["unreported_responses"] == 4  # the helper's 2nd request failed
    assert main(["run", str(path), "-m", "go"]) == 0
    assert "usage: unknown input tokens (unknown cached), unknown output tokens (unknown " \
           "reasoning), 5 LLM calls, 2 tool calls; cost unknown" in \
           capsys.readouterr().out.replace("\n", "")


def test_trace_console_writes_the_runs_spans_to_stderr(tmp_path, capsys):
    assert main(["run", str(team_file(tmp_path)), "-m", "go", "--json",
                 "--trace", "console"]) == 0
    err = capsys.readouterr().err
    names = [json.loads(block)["name"] for block in _json_blocks(err)]
    assert names.count("invoke_agent lead") == 2 and names.count("invoke_agent helper") == 2
    assert names.count("execute_tool send_message_to") == 2


def _json_blocks(text: str) -> list[str]:
    """The console exporter prints one indented JSON object per span."""
    blocks, current = [], []
    for line in text.splitlines():
        current.append(line)
        if line == "}":
            blocks.append("\n".join(current))
            current = []
    return blocks


def test_limits_in_yaml_are_checked_like_any_field(tmp_path, capsys):
    path = team_file(tmp_path, "limits: {max_tool_calls: many}")
    assert main(["run", str(path), "-m", "go"]) == 2
    assert "limits.max_tool_calls" in capsys.readouterr().err


@pytest.mark.parametrize("bad", ["prices: {m: {input_per_mtok: -1, output_per_mtok: 1}}",
                                 "prices: {m: {input_per_mtok: 1}}"])
def test_a_bad_price_table_is_a_config_error(tmp_path, capsys, bad):
    assert main(["run", str(team_file(tmp_path, bad)), "-m", "go"]) == 2
    assert "prices.m" in capsys.readouterr().err


def test_a_model_that_reports_no_usage_shows_unknown_tokens_per_agent(tmp_path, capsys):
    assert main(["run", str(team_file(tmp_path)), "-m", "go", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out.splitlines()[-1])
    lead = summary["agents"]["lead"]
    assert (lead["input_tokens"], lead["output_tokens"]) == ("unknown", "unknown")


def test_the_summary_counts_the_tool_calls_that_ran_as_usage_does(tmp_path, capsys):
    missing = json.dumps({"name": "missing", "arguments": {}})
    path = tmp_path / "team.yaml"
    path.write_text(f"""
name: t
coordinator: lead
members:
  - name: lead
    tool_format: json
    tools: [send_message_to]
    llm: {{provider: scripted, responses: [{json.dumps(missing + SEND)}, "asked", "done"]}}
  - name: helper
    tool_format: json
    llm: {{provider: scripted, responses: ["helped"]}}
""")
    assert main(["run", str(path), "-m", "go", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert summary["usage"]["members"]["lead"]["tool_calls"] == 1  # the unknown tool: refused
    assert summary["agents"]["lead"]["tool_calls"] == 1
    assert summary["agents"]["lead"]["failed_calls"] == 1

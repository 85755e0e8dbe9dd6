"""examples/memory_team.yaml: the four catalogue tools (search.vector, js.exec,
memory.summarize, memory.advise) in one scripted team, offline, through the command line;
the working set is stored with the session and shown by ``sessions show``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from autobyteus_like.cli._main import main

pytest.importorskip("wordllama", reason="the example needs the vector extra")
pytest.importorskip("py_mini_racer", reason="the example needs the js extra")

EXAMPLE = Path(__file__).parent.parent / "examples" / "memory_team.yaml"
TOOLS = "autobyteus_like.tools:builtin_tools"


def test_the_memory_team_uses_all_four_tools(tmp_path, monkeypatch, capsys):
    (tmp_path / "memory_team.yaml").write_text(EXAMPLE.read_text())
    monkeypatch.chdir(tmp_path)
    code = main(["run", "memory_team.yaml", "--tools", TOOLS, "-m", "Brief me", "--yes",
                 "--json", "--session", "m1"])
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert code == 0
    summary = lines[-1]
    assert summary["error"] is None and summary["answer"].startswith("Retry policy: up to 5")
    results = {e["result"]["tool_name"]: e["result"] for e in lines
               if e["type"] == "ToolResultReceived"}
    assert all(result["status"] == "success" for result in results.values()), results
    assert results["search.vector"]["content"][0]["path"] == "notes/retry.md"
    assert results["js.exec"]["content"] == {"result": 15, "logs": ["waits [1,2,4,8]"]}
    assert results["memory.summarize"]["content"]["model_requests"] == 1
    assert results["memory.advise"]["content"]["hot"] == [
        {"path": "memory/retry-summary.md", "why": "the retry policy, for the report"}]
    summary_file = tmp_path / "memory_workspace" / "memory" / "retry-summary.md"
    assert "(notes/retry.md:3-3)" in summary_file.read_text()
    assert (tmp_path / "memory_workspace" / ".autobyteus" / "vector" / "index.usearch").exists()
    calls = {e["invocation"]["name"]: e["invocation"] for e in lines
             if e["type"] == "ToolCallParsed" and e["agent"] == "researcher"}
    assert calls["memory.advise"]["why"] == \
        "Keep the summary at hand for the report and drop the rest"  # lifted out of arguments
    assert all(call["why"] for call in calls.values())  # require_why: every call says why
    # 7 requests of the researcher's turn, 1 side request, 3 of the lead's
    assert summary["usage"]["run"]["llm_calls"] == 11

    assert main(["sessions", "show", "m1"]) == 0
    shown = capsys.readouterr().out
    assert "working set: hot memory/retry-summary.md (the retry policy, for the report)" in shown
    assert "working set: cold notes/lunch.md (not about retries)" in shown

"""The MCP example runs as shipped (in this process; its server in a process of its own)."""

from __future__ import annotations

import runpy
from pathlib import Path

ROOT = Path(__file__).parent.parent.parent


def test_the_mcp_agent_example_runs(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    runpy.run_path(str(ROOT / "examples" / "mcp_agent.py"), run_name="__main__")
    lines = capsys.readouterr().out.splitlines()
    assert lines[:2] == ["tools: ['notes.word_count']", "answer: Three words."]
    assert lines[2].endswith('"status": "success", "content": {"result": 3}}}')

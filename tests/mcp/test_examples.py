"""The MCP example runs as shipped."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parent.parent.parent


def test_the_mcp_agent_example_runs():
    done = subprocess.run([sys.executable, str(ROOT / "examples" / "mcp_agent.py")],
                          capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[:2] == ["tools: ['notes.word_count']", "answer: Three words."]
    assert lines[2].endswith('"status": "success", "content": {"result": 3}}}')

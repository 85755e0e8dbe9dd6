"""The wrapping hook of docs/observability.md runs as written: its cache answers the second,
identical call without running the tool."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOC = Path(__file__).parents[2] / "docs" / "observability.md"


def test_the_caching_example_runs_as_written(capsys: pytest.CaptureFixture[str]):
    blocks = [block for block in re.findall(r"```python\n(.*?)```", DOC.read_text(), re.DOTALL)
              if "def wrap_tool_call" in block]
    assert len(blocks) == 1
    namespace: dict[str, object] = {"__name__": "example"}
    exec(compile(blocks[0], str(DOC), "exec"), namespace)  # its own asserts run too
    assert namespace["looked_up"] == ["hello"]
    assert capsys.readouterr().out == "hello is a greeting\n"

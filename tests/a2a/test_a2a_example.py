"""The A2A example pair runs as shipped (the served team in a process of its own on 127.0.0.1,
scripted replies; the calling team in this process)."""

from __future__ import annotations

import runpy
from pathlib import Path

import pytest

pytest.importorskip("a2a", reason="the A2A example needs autobyteus-like[a2a]")

ROOT = Path(__file__).parent.parent.parent


@pytest.mark.slow  # a served team in a process of its own
def test_the_a2a_pair_example_runs(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    runpy.run_path(str(ROOT / "examples" / "a2a_pair.py"), run_name="__main__")
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("expert team served at http://127.0.0.1:")
    assert lines[1:] == ["ask_experts returned: 2 + 2 = 4.",  # the served team's answer
                         "answer: The experts say: 2 + 2 = 4.",
                         "expert (the remote team as a member) said: Still 4."]

"""The catalogue tools that need an optional extra: absent without it, and ``validate`` says
in one line which extra brings the tool a config names."""

from pathlib import Path

import pytest

from autobyteus_like.cli import main
from autobyteus_like.tools import builtin_tools

EXAMPLE = Path(__file__).parents[3] / "examples" / "memory_team.yaml"
TOOLS = "autobyteus_like.tools:builtin_tools"


@pytest.mark.parametrize(("blocked", "tool", "extra", "package"), [
    ("py_mini_racer", "js.exec", "js", "mini-racer"),
    ("usearch", "search.vector", "vector", "usearch"),
])
def test_a_missing_extra_leaves_the_tool_out_and_validate_names_it(
        monkeypatch, capsys, blocked, tool, extra, package):
    monkeypatch.setitem(__import__("sys").modules, blocked, None)  # as on a base install
    assert tool not in builtin_tools().names()
    assert "memory.summarize" in builtin_tools().names()  # needs no extra
    assert main(["validate", str(EXAMPLE), "--tools", TOOLS]) == 2
    error = capsys.readouterr().err
    assert f"{tool} needs the {package} package: pip install 'autobyteus-like[{extra}]'" \
        in error
    assert "Traceback" not in error


def test_with_the_extras_the_example_is_valid(capsys):
    pytest.importorskip("py_mini_racer")
    pytest.importorskip("usearch")
    assert main(["validate", str(EXAMPLE), "--tools", TOOLS]) == 0
    assert "valid team 'memory_team'" in capsys.readouterr().out

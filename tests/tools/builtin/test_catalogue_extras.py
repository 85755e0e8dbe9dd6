"""The catalogue tools that need an optional extra: absent without it, and ``validate`` says
in one line which extra brings the tool a config names."""

from pathlib import Path

import pytest

from autobyteus_like.cli._main import main
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


WHYLESS = {
    "search.vector": {"query": "retries"},
    "js.exec": {"code": "1 + 1"},
    "memory.summarize": {"target_paths": ["notes.md"], "into_path": "s.md"},
    "memory.advise": {"hot": [{"path": "notes.md", "why": "an entry's own why"}]},
}


@pytest.mark.parametrize("name", sorted(WHYLESS))
def test_a_call_without_why_is_refused_before_the_tool_runs(name, tmp_path):
    import json

    from autobyteus_like import Agent, AgentConfig, SandboxPolicy, ScriptedLLM

    registry = builtin_tools()
    if name not in registry.names():
        pytest.skip(f"{name}'s extra is not installed")
    (tmp_path / "notes.md").write_text("retries\n")
    llm = ScriptedLLM([json.dumps({"name": name, "arguments": WHYLESS[name]}), "ok"])
    config = AgentConfig(name="w", llm=llm, tools=[registry.get(name)], tool_format="json",
                         require_why=True, sandbox=SandboxPolicy(roots=[tmp_path]))
    with Agent(config) as agent:
        agent.run("go", timeout=20)
    assert "must include a `why` argument" in llm.requests[0].system_prompt
    assert f"### {name}" in llm.requests[0].system_prompt  # its manifest entry
    shown = json.loads(llm.requests[1].messages[-1].content.splitlines()[1])["tool_result"]
    assert shown["content"]["code"] == "MISSING_WHY"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["notes.md"]  # nothing ran

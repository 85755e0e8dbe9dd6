"""``--tools``: every way a user names tools loads them, and every mistake is one line in the
user's own code (exit 2)."""

from __future__ import annotations

import textwrap
import warnings
from pathlib import Path

import yaml

from autobyteus_like.cli._main import load_tools, main
from autobyteus_like.tools._decorator import tool

NESTED_FUTURE = '''
from __future__ import annotations

from typing import Annotated, Optional

from pydantic import BaseModel, Field

from autobyteus_like import tool

Days = Annotated[int, Field(ge=1, le=30)]


class Range(BaseModel):
    start: int
    end: int


class Inner(BaseModel):
    ranges: list[Range]


class Req(BaseModel):
    path: str
    inner: Inner
    spare: Optional[dict[str, Range]] = None


@tool
def read_lines(req: Req, days: Days = 3) -> str:
    """Read line ranges."""
    return f"{req.path}: {req.inner.ranges[0].end - req.inner.ranges[0].start} lines"


def make_tools():
    return [read_lines]
'''


def write_team(folder: Path, *tools: str) -> Path:
    path = folder / "t.yaml"
    path.write_text(yaml.safe_dump({"name": "t", "coordinator": "a", "members": [
        {"name": "a", "tools": list(tools),
         "llm": {"provider": "scripted", "responses": ["done"]}}]}))
    return path


def test_a_file_with_postponed_annotations_and_nested_models_loads(tmp_path, capsys):
    (tmp_path / "nested_future.py").write_text(NESTED_FUTURE)
    spec = f"{tmp_path / 'nested_future.py'}:make_tools"
    team = write_team(tmp_path, "read_lines")
    assert main(["validate", str(team), "--tools", spec]) == 0, capsys.readouterr().err
    registry = load_tools(spec)
    assert registry is not None
    read_lines = registry.get("read_lines")
    assert read_lines.run({"req": {"path": "a.py", "inner": {"ranges": [
        {"start": 1, "end": 4}]}}}) == "a.py: 3 lines"
    assert read_lines.inline_schema()["properties"]["days"]["maximum"] == 30


def test_an_annotation_that_cannot_be_resolved_is_one_line_naming_the_argument(tmp_path,
                                                                              capsys):
    (tmp_path / "broken.py").write_text(textwrap.dedent('''
        from __future__ import annotations
        from autobyteus_like import tool

        @tool
        def look(path: str, where: Nowhere) -> str:
            """Look somewhere."""
            return path
    '''))
    team = write_team(tmp_path, "look")
    assert main(["validate", str(team), "--tools", f"{tmp_path / 'broken.py'}:look"]) == 2
    [line] = capsys.readouterr().err.splitlines()
    assert "argument 'where'" in line and "Nowhere" in line
    assert f"{tmp_path / 'broken.py'}, line 5" in line  # the user's @tool line, not ours


def test_a_module_in_the_current_folder_is_found(tmp_path, monkeypatch, capsys):
    (tmp_path / "trip_tools.py").write_text(textwrap.dedent('''
        from autobyteus_like import tool

        @tool
        def plan(city: str) -> str:
            """Plan a trip."""
            return city
    '''))
    monkeypatch.chdir(tmp_path)
    monkeypatch.delitem(__import__("sys").modules, "trip_tools", raising=False)
    team = write_team(tmp_path, "plan")
    assert main(["validate", str(team), "--tools", "trip_tools:plan"]) == 0, \
        capsys.readouterr().err


def test_a_single_tool_is_accepted_not_called(tmp_path, capsys):
    (tmp_path / "one.py").write_text(textwrap.dedent('''
        from autobyteus_like import tool

        @tool
        def look(path: str) -> str:
            """Look at a path."""
            return path
    '''))
    team = write_team(tmp_path, "look")
    assert main(["validate", str(team), "--tools", f"{tmp_path / 'one.py'}:look"]) == 0, \
        capsys.readouterr().err


def test_a_failing_module_import_shows_no_importlib_internals(tmp_path, monkeypatch, capsys):
    (tmp_path / "failing_tools.py").write_text("import json\nraise RuntimeError('no config')\n")
    monkeypatch.chdir(tmp_path)
    team = write_team(tmp_path, "x")
    assert main(["validate", str(team), "--tools", "failing_tools:make"]) == 2
    [line] = capsys.readouterr().err.splitlines()
    assert "frozen importlib" not in line
    assert "failing_tools.py, line 2: RuntimeError: no config" in line


def test_a_missing_module_names_the_current_folder(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["validate", str(write_team(tmp_path, "x")), "--tools", "nope_tools:x"]) == 2
    [line] = capsys.readouterr().err.splitlines()
    assert "no module named 'nope_tools' in the current folder" in line


def test_a_tool_without_a_docstring_warns_once_and_the_cli_shows_it(tmp_path, capsys):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")

        @tool
        def silent(path: str) -> str:
            return path

    assert [str(w.message) for w in caught] == [
        "tool 'silent' has no description (no docstring and no description=...): the LLM "
        "is told only its name and arguments"]
    assert caught[0].filename == __file__
    (tmp_path / "bare.py").write_text(
        "from autobyteus_like import tool\n\n@tool\ndef bare(x: int) -> int:\n    return x\n")
    team = write_team(tmp_path, "bare")
    assert main(["validate", str(team), "--tools", f"{tmp_path / 'bare.py'}:bare"]) == 0
    err = capsys.readouterr().err
    assert err.startswith("warning: ") and "tool 'bare' has no description" in err
    assert len(err.splitlines()) == 1


def test_an_empty_message_is_refused(tmp_path, capsys):
    assert main(["run", str(write_team(tmp_path)), "-m", "  "]) == 2
    assert capsys.readouterr().err.strip() == (
        "error: --message is empty: say what the coordinator should do")

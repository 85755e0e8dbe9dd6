"""What careless or hostile input does to the command line: one located line on stderr and exit
2, never a traceback, an exit 0, gigabytes or a hang."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from autobyteus_like.cli._main import main

ROOT = Path(__file__).parent.parent
EXAMPLES = ROOT / "examples"
TEAM = str(EXAMPLES / "research_team.yaml")

BROKEN_MODULES = {
    "raises_on_import": ("raise RuntimeError('no config here')\n",
                         "broken.py, line 1: RuntimeError: no config here"),
    "syntax_error": ("def tools(:\n    pass\n", "broken.py, line 1: SyntaxError"),
    "missing_import": ("import no_such_package_anywhere\n",
                       "ModuleNotFoundError: No module named 'no_such_package_anywhere'"),
    "factory_raises": ("def make_tools():\n    raise ValueError('bad factory')\n",
                       "broken.py, line 2: ValueError: bad factory"),
    "exits_zero": ("import sys\nsys.exit(0)\n", "loading it called sys.exit(0)"),
    "exits_with_text": ("raise SystemExit('bye')\n", "loading it called sys.exit('bye')"),
    "not_tools": ("def make_tools():\n    return 42\n",
                  "expected a ToolRegistry or an iterable of tools, got int"),
}


@pytest.mark.parametrize("case", sorted(BROKEN_MODULES))
@pytest.mark.parametrize("command", ["validate", "run"])
def test_a_broken_tools_module_is_one_line_and_exit_2(case, command, tmp_path, capsys):
    source, expected = BROKEN_MODULES[case]
    module = tmp_path / "broken.py"
    module.write_text(source)
    args = [command, TEAM, "--tools", f"{module}:make_tools"]
    if command == "run":
        args += ["--message", "hi"]
    assert main(args) == 2
    captured = capsys.readouterr()
    [line] = captured.err.splitlines()
    assert line.startswith(f"error: --tools '{module}:make_tools': ")
    assert expected in line
    assert "Traceback" not in captured.err + captured.out


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The installed command in a subprocess, with its peak memory reported on stdout."""
    code = textwrap.dedent(f"""
        import re, sys
        from autobyteus_like.cli._main import main
        code = main({list(args)!r})
        # VmHWM, not ru_maxrss: the latter keeps the forking parent's peak across exec
        status = open("/proc/self/status").read()
        print("maxrss_kb", re.search(r"VmHWM:\\s+(\\d+)", status).group(1))
        sys.exit(code)
    """)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, cwd=cwd)


def _peak_mb(done: subprocess.CompletedProcess[str]) -> float:
    return int(done.stdout.split("maxrss_kb")[-1]) / 1024


HOSTILE_YAML = {
    "alias_bomb": (
        "name: t\ncoordinator: a\nmembers:\n  - name: a\n"
        "    llm: {provider: scripted}\n    tools: &l9 [*l8,*l8,*l8,*l8,*l8,*l8,*l8,*l8,*l8]\n",
        "the document expands to more than"),
    "deep_nesting": ("name: t\nmembers: " + "[" * 5000 + "]" * 5000 + "\n",
                     "nesting is deeper than 64 levels"),
    "not_utf8": ("name: caf\udce9\n", "line 1: the file is not UTF-8 text (byte 0xe9"),
    "deep_mapping": ("x:\n" + "".join("  " * i + f"k{i}:\n" for i in range(1, 500)),
                     "nesting is deeper than 64 levels"),
    "recursive_list": ("name: t\ncoordinator: a\nmembers: &m [*m]\n",
                       "an alias refers to a value that contains it"),
    "recursive_map": ("name: t\ncoordinator: a\nmembers: [&a {name: a, handlers: *a}]\n",
                      "an alias refers to a value that contains it"),
    "bad_int_tag": ("name: t\ncoordinator: a\nmembers: []\nx: !!int abc\n",
                    "a value cannot be read: invalid literal for int()"),
    "bad_date": ("name: t\ncoordinator: a\nmembers: [{name: a, role: 2001-02-30}]\n",
                 "a value cannot be read: day is out of range"),
}


def _bomb_prefix() -> str:
    lines = ["a0: &l0 [x, x, x, x, x, x, x, x, x]"]
    for level in range(1, 9):
        prior = f"*l{level - 1}"
        lines.append(f"a{level}: &l{level} [{', '.join([prior] * 9)}]")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("case", sorted(HOSTILE_YAML))
@pytest.mark.parametrize("command", ["validate", "run"])
def test_hostile_yaml_is_one_located_line_quickly_and_in_little_memory(case, command,
                                                                        tmp_path):
    text, expected = HOSTILE_YAML[case]
    if case == "alias_bomb":
        text = _bomb_prefix() + text
    path = tmp_path / "team.yaml"
    path.write_bytes(text.encode("utf-8", "surrogateescape"))
    args = [command, str(path)] + (["--message", "hi"] if command == "run" else [])
    done = _cli(*args, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    [line] = done.stderr.splitlines()
    assert line.startswith(f"error: {path}: ") and expected in line
    assert _peak_mb(done) < 150  # the expanded bomb alone needs gigabytes


@pytest.mark.parametrize("value", ["inf", "-1", "0", "nan", "soon"])
def test_a_timeout_must_be_a_positive_finite_number(value, capsys):
    with pytest.raises(SystemExit) as exited:
        main(["run", TEAM, "--message", "hi", "--timeout", value])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "--timeout" in err and "Traceback" not in err
    assert err.startswith("error: autobyteus-like run: argument --timeout: ")
    assert len(err.splitlines()) == 1


def test_a_config_with_many_problems_is_shortened(tmp_path, capsys):
    members = "".join(f"  - name: m{i}\n    bogus: {i}\n" for i in range(100))
    path = tmp_path / "team.yaml"
    path.write_text(f"name: t\ncoordinator: m0\nmembers:\n{members}")
    assert main(["validate", str(path)]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 21 and lines[-1].endswith("... and 180 more problems")

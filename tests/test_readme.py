"""README.md as a new user meets it: every code block runs on its own, as a script, in a fresh
virtual environment holding only the base install (plus the extra a block names); the first
hour's commands do what their comments say; every link resolves inside the repository."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import venv
from collections.abc import Callable
from pathlib import Path

import pytest

from autobyteus_like.cli._main import main

ROOT = Path(__file__).parent.parent
README = (ROOT / "README.md").read_text()
COMMANDS = re.findall(r"```bash\n(.*?)\n```", README, re.DOTALL)
PYTHON_BLOCKS = re.findall(r"```python\n(.*?)```", README, re.DOTALL)
NEEDS = re.compile(r"^# needs: (\S+)")


def _needs(block: str) -> str | None:
    match = NEEDS.match(block)
    return match.group(1) if match else None


FRESH_ENV = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
"""The environment of a fresh machine's shell: no checkout on the path (a PYTHONPATH naming
one would make the fresh environment's pip think the package is installed already)."""

BASE_BLOCKS = [block for block in PYTHON_BLOCKS if _needs(block) is None]
EXTRA_BLOCKS = [block for block in PYTHON_BLOCKS if _needs(block) is not None]


def _pip(python: Path, *args: str) -> None:
    """``pip install`` into ``python``'s environment, by this environment's pip (its
    ``--python``): an environment the tests install into needs no pip of its own."""
    done = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install",
                           "-q", *args], capture_output=True, text=True, timeout=600,
                          env=FRESH_ENV)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.fixture(scope="module")
def wheelhouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """This checkout built once as a wheel, beside the wheels of its base dependencies: the
    fresh environments below install from here (the build and the downloads are paid once,
    not once per environment)."""
    house = tmp_path_factory.mktemp("wheelhouse")
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "-w", str(house),
                           str(ROOT)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    return house


def _base_install(home: Path, house: Path, with_pip: bool = False) -> Path:
    """A new virtual environment in ``home`` holding the package built from this checkout
    (not editable: the repository is not on its path) and its base dependencies only; pip
    too if ``with_pip`` (a user's own commands call it; installing it costs seconds)."""
    venv.create(home, with_pip=with_pip)
    python = home / "bin" / "python"
    _pip(python, "--no-index", "--find-links", str(house), "autobyteus-like")
    return python


@pytest.fixture(scope="module")
def fresh_python(tmp_path_factory: pytest.TempPathFactory, wheelhouse: Path) -> Path:
    """A new virtual environment with the base install (the README's blocks run in it)."""
    return _base_install(tmp_path_factory.mktemp("fresh-venv"), wheelhouse)


def _run_script(python: Path, code: str, folder: Path) -> subprocess.CompletedProcess[str]:
    script = folder / "block.py"
    script.write_text(code)
    # Run from the repository (the examples' files are read from it) but as a script in a
    # folder of its own: nothing of the checkout is importable, as after `pip install`.
    return subprocess.run([str(python), str(script)], capture_output=True, text=True,
                          timeout=300, cwd=ROOT, env=FRESH_ENV)


def test_the_readme_has_its_blocks():
    assert len(BASE_BLOCKS) >= 8 and EXTRA_BLOCKS


@pytest.mark.parametrize("index", range(len(BASE_BLOCKS)))
def test_each_python_block_runs_alone_with_the_base_install(index, fresh_python, tmp_path):
    done = _run_script(fresh_python, BASE_BLOCKS[index], tmp_path)
    assert done.returncode == 0, f"README block {index}:\n{BASE_BLOCKS[index]}\n{done.stderr}"


@pytest.mark.parametrize("index", range(len(EXTRA_BLOCKS)))
def test_a_block_that_names_an_extra_runs_with_it(index, fresh_python, wheelhouse, tmp_path):
    block = EXTRA_BLOCKS[index]
    requirement = _needs(block)
    assert requirement is not None
    [built] = wheelhouse.glob("autobyteus_like-*.whl")  # this checkout, built once
    _pip(fresh_python, requirement.replace("autobyteus-like", str(built)))
    done = _run_script(fresh_python, block, tmp_path)
    assert done.returncode == 0, f"README block needing {requirement}:\n{block}\n{done.stderr}"


def test_the_pytest_example_passes_under_pytest(fresh_python, tmp_path):
    [block] = re.findall(r"```py\n(.*?)```", README, re.DOTALL)
    _pip(fresh_python, "pytest")  # what a user adds to write such a test
    (tmp_path / "test_readme_example.py").write_text(block)
    result = subprocess.run([str(fresh_python), "-m", "pytest", "-q", "-p", "no:cacheprovider",
                             str(tmp_path)], capture_output=True, text=True, cwd=tmp_path,
                            timeout=300, env=FRESH_ENV)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 passed" in result.stdout


def test_the_main_job_command_runs(monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    run = COMMANDS[0].split(".venv/bin/autobyteus-like ", 1)[1]
    assert main(shlex.split(run)) == 0
    out = " ".join(capsys.readouterr().out.split())  # the console wraps long lines
    assert "answer: Done: the coder wrote hello.py" in out
    # every "says" line whole, none glued to the next (#35)
    for line in ("lead says: I'll ask the coder to write it. lead calls",
                 "lead says: The coder is on it; I will report when they answer. lead answers",
                 "coder says: Writing the file and measuring it in one go. coder calls",
                 "lead says: Done: the coder wrote hello.py (one line, 2 words) and checked it. "
                 "lead answers",
                 "coder says: Reported to the lead. coder answers"):
        assert line in out


def test_readme_test_command_is_the_ci_command():
    ci = (ROOT / ".ci" / "run").read_text()
    assert COMMANDS[1] in ci.splitlines()


FIRST_HOUR = README.split("## Your first hour", 1)[1].split("```bash\n", 1)[1].split("```")[0]
HOUR_LINES = [line for line in FIRST_HOUR.splitlines() if line.strip()]


@pytest.fixture(scope="module")
def first_hour(tmp_path_factory: pytest.TempPathFactory,
               wheelhouse: Path) -> Callable[[int], None]:
    """Runs the first hour's lines on the install each one uses: a virtual environment of its
    own holding the base install, to which the list's own ``pip install`` lines add extras
    (each runs once, before any later line)."""
    home = tmp_path_factory.mktemp("first-hour-venv")
    _base_install(home, wheelhouse, with_pip=True)  # the first hour's lines call its pip
    done: set[int] = set()

    def run(index: int) -> None:
        for earlier in range(1, index):
            if " install " in HOUR_LINES[earlier] and earlier not in done:
                _hour_line(HOUR_LINES[earlier], home)
                done.add(earlier)
        _hour_line(HOUR_LINES[index], home)
        done.add(index)

    return run


def _hour_line(line: str, home: Path) -> None:
    command, _, comment = line.partition("  #")
    expected = re.match(r"\s*exit (\d+)", comment)
    args = shlex.split(command.replace(".venv/bin/", f"{home}/bin/"))
    done = subprocess.run(args, capture_output=True, text=True, cwd=ROOT, timeout=600,
                          env=FRESH_ENV)
    assert done.returncode == (int(expected.group(1)) if expected else 0), done.stderr
    assert "Traceback" not in done.stderr
    if done.returncode:
        assert done.stderr.strip().startswith("error: ")
    if "one line" in comment:
        assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    if "a warning names the extra" in comment:
        assert "warning: " in done.stderr and "pip install 'autobyteus-like[" in done.stderr


@pytest.mark.parametrize("index", range(1, len(HOUR_LINES)),
                         ids=lambda index: HOUR_LINES[index].split("#")[0][:60])
def test_each_first_hour_command_does_what_it_says(index, first_hour):
    first_hour(index)


def test_the_first_hour_starts_with_the_base_install():
    assert HOUR_LINES[0].startswith("python3 -m venv .venv && .venv/bin/pip install -q -e .")


def test_every_link_resolves_inside_the_repository():
    for document in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for target in re.findall(r"\]\(([^)\s]+)\)", document.read_text()):
            if re.match(r"https?://", target):
                continue
            path = (document.parent / target.split("#")[0]).resolve()
            assert path.is_relative_to(ROOT) and path.exists(), f"{document.name}: {target}"


def test_the_formats_demo_runs():
    out = subprocess.run([sys.executable, str(ROOT / "examples" / "tool_formats_demo.py")],
                         capture_output=True, text=True, check=True, timeout=60).stdout
    assert "call call_1: add({'a': 40, 'b': 2})" in out
    assert "parse error in call 1" in out
    assert '{"tool": "add", "status": "success", "content": 15}' in out


def test_import_is_light():
    heavy = "('openai', 'anthropic', 'google.genai', 'httpx', 'rich', 'yaml', 'griffe')"
    code = f"import sys, autobyteus_like; print([m for m in {heavy} if m in sys.modules])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"

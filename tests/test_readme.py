"""Every example in README.md runs: the Python blocks in order in one namespace (as a reader
would), the pytest example under a real pytest, and the main-job command's run."""

import re
import shlex
import subprocess
import sys
from pathlib import Path

from autobyteus_like.cli import main

ROOT = Path(__file__).parent.parent
README = (ROOT / "README.md").read_text()
COMMANDS = re.findall(r"```bash\n(.*?)\n```", README, re.DOTALL)


def test_readme_python_examples_run(monkeypatch):
    monkeypatch.chdir(ROOT)
    blocks = re.findall(r"```python\n(.*?)```", README, re.DOTALL)
    assert len(blocks) >= 6
    namespace: dict = {}
    for block in blocks:
        exec(compile(block, "README.md", "exec"), namespace)


def test_readme_pytest_example_passes_under_pytest(tmp_path):
    [block] = re.findall(r"```py\n(.*?)```", README, re.DOTALL)
    (tmp_path / "test_readme_example.py").write_text(block)
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                             str(tmp_path)], capture_output=True, text=True, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 passed" in result.stdout


def test_the_main_job_command_runs(monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    run = COMMANDS[0].split(".venv/bin/autobyteus-like ", 1)[1]
    assert main(shlex.split(run)) == 0
    assert "answer: Done: the coder wrote hello.py" in capsys.readouterr().out


def test_readme_test_command_is_the_ci_command():
    ci = (ROOT / ".ci" / "run").read_text()
    assert COMMANDS[1] in ci.splitlines()


def test_the_formats_demo_runs():
    out = subprocess.run([sys.executable, str(ROOT / "examples" / "tool_formats_demo.py")],
                         capture_output=True, text=True, check=True, timeout=60).stdout
    assert "call call_1: add({'a': 40, 'b': 2})" in out
    assert "parse error in call 1" in out
    assert '{"tool": "add", "status": "success", "content": 15}' in out


def test_import_is_light():
    heavy = "('openai', 'anthropic', 'google.genai', 'httpx', 'rich', 'yaml')"
    code = f"import sys, autobyteus_like; print([m for m in {heavy} if m in sys.modules])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"

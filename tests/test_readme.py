"""Every Python example in README.md runs, in order, in one namespace (as a reader would)."""

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parent.parent
README = (ROOT / "README.md").read_text()


def test_readme_python_examples_run():
    blocks = re.findall(r"```python\n(.*?)```", README, re.DOTALL)
    assert len(blocks) >= 4
    namespace: dict = {}
    for block in blocks:
        exec(compile(block, "README.md", "exec"), namespace)


def test_readme_commands_are_the_ci_commands():
    commands = re.findall(r"```bash\n(.*?)\n```", README, re.DOTALL)
    ci = (ROOT / ".ci" / "run").read_text()
    assert commands[1] in ci.splitlines()


def test_the_demo_runs():
    out = subprocess.run([sys.executable, str(ROOT / "examples" / "tool_formats_demo.py")],
                         capture_output=True, text=True, check=True, timeout=60).stdout
    assert "call call_1: add({'a': 40, 'b': 2})" in out
    assert "parse error in call 1" in out
    assert '{"tool": "add", "status": "success", "content": 15}' in out


def test_import_is_light():
    heavy = "('openai', 'anthropic', 'google.genai', 'httpx')"
    code = f"import sys, autobyteus_like; print([m for m in {heavy} if m in sys.modules])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"

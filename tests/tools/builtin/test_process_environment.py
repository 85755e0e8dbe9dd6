"""A child sees the minimal environment, the policy's pass_env names and the call's env; never
the agent's secrets."""

import json
import os
import sys

import pytest

from autobyteus_like import ErrorCode
from autobyteus_like.tools import SandboxPolicy, ToolContext, ToolFailure, builtin_tools

MINIMAL = {"PATH", "HOME", "LANG", "TERM", "TMPDIR"}
PRINT_ENVIRON = "import json, os; print(json.dumps(dict(os.environ)))"


@pytest.fixture(autouse=True)
def secrets_in_the_agent(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fake-secret")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "fake-aws-secret")
    monkeypatch.setenv("LANG", "C.UTF-8")


def environ_of(result: dict) -> dict[str, str]:
    return dict(line.split("=", 1) for line in result["stdout"].splitlines())


def test_terminal_run_sees_only_the_minimal_environment(run, tmp_path):
    result = run("terminal.run", cmd=["env"])
    assert set(environ_of(result)) == MINIMAL
    assert "fake-secret" not in result["stdout"] and "fake-aws" not in result["stdout"]
    env = environ_of(result)
    assert (env["PATH"], env["HOME"], env["LANG"], env["TERM"]) == (
        os.environ["PATH"], str(tmp_path), "C.UTF-8", "dumb")


def test_python_exec_sees_only_the_minimal_environment(run):
    environ = json.loads(run("python.exec", code=PRINT_ENVIRON)["stdout"])
    assert set(environ) == MINIMAL and "OPENAI_API_KEY" not in environ


def test_home_is_the_first_root(tmp_path):
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    context = ToolContext(agent="t", sandbox=SandboxPolicy(roots=[first, second]))
    result = builtin_tools().get("terminal.run").run(
        {"cmd": ["sh", "-c", 'echo "$HOME"'], "cwd": str(second)}, context)
    assert result["stdout"] == f"{first}\n"


def test_names_in_pass_env_pass_and_absent_ones_stay_absent(run, monkeypatch):
    monkeypatch.setenv("PROJECT_TOKEN", "let-me-through")
    monkeypatch.delenv("NOT_SET_ANYWHERE", raising=False)
    result = run("terminal.run", {"pass_env": ("PROJECT_TOKEN", "NOT_SET_ANYWHERE")},
                 cmd=["env"])
    env = environ_of(result)
    assert env["PROJECT_TOKEN"] == "let-me-through"
    assert set(env) == MINIMAL | {"PROJECT_TOKEN"}


def test_the_calls_env_passes_and_overrides_the_minimal_set(run):
    result = run("terminal.run", cmd=["env"], env={"BUILD_MODE": "release", "TERM": "xterm"})
    env = environ_of(result)
    assert (env["BUILD_MODE"], env["TERM"]) == ("release", "xterm")
    assert set(env) == MINIMAL | {"BUILD_MODE"}


def test_tmpdir_is_a_fresh_private_directory_removed_after_the_call(run):
    code = ("import os, stat, tempfile; d = os.environ['TMPDIR']; "
            "open(os.path.join(d, 'scratch'), 'w').write('x'); os.mkdir(os.path.join(d, 'sub')); "
            "print(d, oct(stat.S_IMODE(os.stat(d).st_mode)), tempfile.gettempdir() == d)")
    first = run("python.exec", code=code)["stdout"].split()
    second = run("python.exec", code=code)["stdout"].split()
    assert first[1:] == ["0o700", "True"]
    assert first[0] != second[0]
    assert not os.path.exists(first[0]) and not os.path.exists(second[0])


@pytest.mark.parametrize(("env", "named"), [
    ({"": "x"}, "''"),
    ({"A=B": "x"}, "'A=B'"),
    ({"A\x00B": "x"}, "NUL"),
    ({"OK": "a\x00b"}, "'OK'"),
    ({"OK": "\udc80"}, "'OK'"),
])
def test_an_env_the_os_cannot_take_is_refused_by_name(run, env, named):
    with pytest.raises(ToolFailure) as caught:
        run("terminal.run", cmd=["true"], env=env)
    assert caught.value.code is ErrorCode.INVALID_ARGS
    assert named in caught.value.message


def test_a_large_env_value_passes_whole_and_one_too_large_is_invalid_args(run):
    big = "v" * 100_000
    count = "import os; print(len(os.environ['BIG']))"
    result = run("terminal.run", cmd=[sys.executable, "-c", count], env={"BIG": big})
    assert result["stdout"] == "100000\n"
    with pytest.raises(ToolFailure) as caught:  # one string above the kernel's 128 KiB limit
        run("terminal.run", cmd=["true"], env={"BIG": "v" * 200_000})
    assert caught.value.code is ErrorCode.INVALID_ARGS
    assert "too large" in caught.value.message


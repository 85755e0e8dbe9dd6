import os
import sys
import time

import pytest

from autobyteus_like import ErrorCode
from autobyteus_like.tools import ToolFailure


def running(pid: int) -> bool:
    """Whether ``pid`` is a live process (a killed one left as a zombie is not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def gone_within(pid: int, seconds: float) -> bool:
    """SIGKILL reaches a grandchild asynchronously and no event tells us when it died, so
    poll the process table until it has, or the deadline passes."""
    deadline = time.monotonic() + seconds
    while running(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True





def test_terminal_run_captures_output_and_exit_code(run, tmp_path):
    result = run("terminal.run", cmd=[sys.executable, "-c", "import sys; print('out'); "
                                      "print('err', file=sys.stderr); sys.exit(3)"])
    assert (result["stdout"], result["stderr"], result["exit_code"], result["truncated"]) == (
        "out\n", "err\n", 3, False)
    (tmp_path / "sub").mkdir()
    assert run("terminal.run", cmd=["pwd"], cwd="sub")["stdout"].strip() == str(tmp_path / "sub")


def test_output_is_capped(run):
    result = run("python.exec", {"max_output_bytes": 100}, code="print('x' * 10000)")
    assert len(result["stdout"]) == 100 and result["truncated"] is True


def test_a_timeout_kills_the_whole_process_group(run, tmp_path):
    pid_file = tmp_path / "pid"
    script = (f"import os, subprocess, sys, time\n"
              f"child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
              f"open({str(pid_file)!r}, 'w').write(f'{{os.getpid()}} {{child.pid}}')\n"
              f"time.sleep(60)\n")
    with pytest.raises(ToolFailure) as caught:
        run("python.exec", code=script, timeout_ms=1500)
    assert caught.value.code is ErrorCode.TIMEOUT
    assert "ran longer than 1.5 s and was killed" in caught.value.message
    for pid in map(int, pid_file.read_text().split()):
        assert gone_within(pid, 5)  # both the process and its child are gone


def test_the_sandbox_timeout_caps_the_requested_one(run):
    with pytest.raises(ToolFailure, match=r"longer than 0\.5 s"):
        run("terminal.run", {"timeout_s": 0.5}, cmd=["sleep", "5"], timeout_ms=60000)


def test_bad_commands_are_clear(run):
    with pytest.raises(ToolFailure) as missing:
        run("terminal.run", cmd=["no-such-program-x"])
    assert missing.value.code is ErrorCode.NOT_FOUND
    with pytest.raises(ToolFailure) as empty:
        run("terminal.run", cmd=[])
    assert empty.value.code is ErrorCode.INVALID_ARGS

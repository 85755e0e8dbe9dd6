"""Nothing a command starts outlives its call: background jobs, new sessions, daemons, fork
trees, and commands that attack their supervisor.

Every process a test starts carries the test's unique tmp_path in its command line (a symlink
to ``sleep`` inside it, or an argument), so the tests find exactly their own processes and
never touch another on the machine. The call returns only after its processes are dead (the
supervisor reaps them; the fallbacks wait until they are), so the checks look once, right after
the call, and need no waiting.
"""

import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from autobyteus_like import ErrorCode
from autobyteus_like.tools import ToolFailure


def live_processes_mentioning(marker: str) -> list[int]:
    """Live (not zombie) processes whose command line contains ``marker``."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            with open(f"/proc/{name}/cmdline", "rb") as cmdline:
                if marker.encode() not in cmdline.read():
                    continue
            with open(f"/proc/{name}/stat") as stat:
                if stat.read().rsplit(")", 1)[1].split()[0] in "ZX":
                    continue
        except OSError:  # gone meanwhile
            continue
        found.append(int(name))
    return found


@pytest.fixture
def left_behind(tmp_path: Path) -> Iterator[Callable[[], list[int]]]:
    """Lists this test's live processes; afterwards kills any still alive, so that a failing
    test (or the old code) leaves nothing running."""
    yield lambda: live_processes_mentioning(str(tmp_path))
    for pid in live_processes_mentioning(str(tmp_path)):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            continue


@pytest.fixture
def sleeper(tmp_path: Path) -> str:
    """``sleep`` under a name inside tmp_path, so its command line identifies it."""
    path = tmp_path / "sleeper"
    sleep = shutil.which("sleep")
    assert sleep
    path.symlink_to(sleep)
    return str(path)


def recorded(pid_file: Path) -> list[int]:
    return [int(line) for line in pid_file.read_text().split()]


def not_parent_of_the_test(action: str) -> str:
    """Shell that runs ``action`` (aimed at $PPID) only when $PPID is not this test process:
    code without a supervisor would otherwise kill or stop pytest itself."""
    return f'[ "$PPID" = "{os.getpid()}" ] || {{ {action}; }}'


def test_a_background_job_is_killed_when_the_command_returns(run, tmp_path, sleeper,
                                                             left_behind):
    pids = tmp_path / "pids"
    result = run("terminal.run", cmd=["sh", "-c", f"{sleeper} 60 & echo $! > {pids}; "
                                                  "echo started"])
    assert (result["stdout"], result["exit_code"]) == ("started\n", 0)
    assert len(recorded(pids)) == 1 and left_behind() == []


def test_a_timeout_kills_new_sessions_and_daemons_that_ignore_signals(run, tmp_path, sleeper,
                                                                      left_behind):
    pids = tmp_path / "pids"
    script = f"""
import os, signal, subprocess, time
for catchable in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
    signal.signal(catchable, signal.SIG_IGN)
def record(pid):
    with open({str(pids)!r}, "a") as file:
        file.write(f"{{pid}}\\n")
record(os.getpid())
record(subprocess.Popen(["setsid", {sleeper!r}, "60"]).pid)  # a grandchild in a new session
if os.fork() == 0:  # a classic double-forked daemon
    os.setsid()
    if os.fork() == 0:
        record(os.getpid())
        time.sleep(60)
    os._exit(0)
time.sleep(60)
"""
    with pytest.raises(ToolFailure) as caught:
        run("python.exec", code=script, timeout_ms=1500)
    assert caught.value.code is ErrorCode.TIMEOUT
    assert len(recorded(pids)) == 3
    assert left_behind() == []


def test_a_bounded_fork_tree_half_in_new_sessions_is_killed_on_return(run, tmp_path,
                                                                      left_behind):
    pids = tmp_path / "pids"
    pids.touch()
    fanout, depth = 4, 3
    bomb = f"""
import os, time
def spawn(level):
    for _ in range({fanout}):
        if os.fork() == 0:
            if level % 2:
                os.setsid()
            with open({str(pids)!r}, "a") as file:
                file.write(f"{{os.getpid()}}\\n")
            if level < {depth}:
                spawn(level + 1)
            time.sleep(60)
            os._exit(0)
spawn(1)
expected = {sum(fanout ** level for level in range(1, depth + 1))}
while len(open({str(pids)!r}).read().split()) < expected:
    time.sleep(0.01)  # the tree's owner waits for its tree (a test script, not our code)
"""
    result = run("terminal.run", cmd=[sys.executable, "-c", bomb], timeout_ms=20000)
    assert result["exit_code"] == 0, result["stderr"]
    assert len(recorded(pids)) == 84
    assert left_behind() == []


def test_a_command_that_kills_its_supervisor_still_ends_cleanly(run, tmp_path, sleeper,
                                                                left_behind):
    pids = tmp_path / "pids"
    script = (f"{sleeper} 60 & echo $! > {pids}; "
              f"{not_parent_of_the_test('kill -9 $PPID')}; {sleeper} 61")
    with pytest.raises(ToolFailure) as caught:
        run("terminal.run", cmd=["sh", "-c", script], timeout_ms=5000)
    assert caught.value.code is ErrorCode.INTERNAL
    assert "was killed by signal 9" in caught.value.message
    assert len(recorded(pids)) == 1 and left_behind() == []


def test_a_command_that_stops_its_supervisor_is_still_killed_at_the_deadline(
        run, tmp_path, sleeper, left_behind):
    pids = tmp_path / "pids"
    script = (f"setsid {sleeper} 60 & echo $! > {pids}; "
              f"{not_parent_of_the_test('kill -STOP $PPID')}; {sleeper} 61")
    started = time.monotonic()
    with pytest.raises(ToolFailure) as caught:
        run("terminal.run", cmd=["sh", "-c", script], timeout_ms=1000)
    assert caught.value.code is ErrorCode.TIMEOUT
    assert time.monotonic() - started < 5  # the deadline plus the grace, not forever
    assert len(recorded(pids)) == 1 and left_behind() == []


def test_the_supervisor_ignores_polite_signals_from_the_command(run, tmp_path, sleeper,
                                                               left_behind):
    script = (f"{not_parent_of_the_test('kill -TERM $PPID; kill -INT $PPID; kill -HUP $PPID')}"
              f"; setsid {sleeper} 60 & echo done")
    result = run("terminal.run", cmd=["sh", "-c", script])
    assert (result["stdout"], result["exit_code"]) == ("done\n", 0)
    assert left_behind() == []


def test_a_command_may_not_leave_by_a_shell_that_exits_at_once(run, tmp_path, sleeper,
                                                                left_behind):
    # nohup + setsid + redirections: the usual way to "detach" a job from a shell.
    pids = tmp_path / "pids"
    script = f"nohup setsid {sleeper} 60 > /dev/null 2>&1 < /dev/null & echo $! > {pids}; exit 0"
    assert run("terminal.run", cmd=["sh", "-c", script])["exit_code"] == 0
    assert len(recorded(pids)) == 1 and left_behind() == []


def test_an_interrupted_call_still_leaves_nothing_behind(run, tmp_path, sleeper, left_behind):
    # The agent's side fails mid-call (here an exception raised from a signal handler, as
    # KeyboardInterrupt would be): the call's processes must still go.
    class Interrupted(Exception):
        pass

    def interrupt(*_: object) -> None:
        raise Interrupted

    pids = tmp_path / "pids"
    previous = signal.signal(signal.SIGALRM, interrupt)
    signal.setitimer(signal.ITIMER_REAL, 0.5)
    try:
        with pytest.raises(Interrupted):
            run("terminal.run", cmd=["sh", "-c", f"setsid {sleeper} 60 & echo $! > {pids}; "
                                                 f"{sleeper} 61"], timeout_ms=10000)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert len(recorded(pids)) == 1 and left_behind() == []


def test_processes_the_call_did_not_start_are_left_alone(run, sleeper, left_behind):
    bystander = subprocess.Popen([sleeper, "60"])
    try:
        run("terminal.run", cmd=["sh", "-c", f"{sleeper} 61 & echo started"])
        with pytest.raises(ToolFailure):  # the fallback path: the session sweep
            run("terminal.run", cmd=["sh", "-c", not_parent_of_the_test("kill -9 $PPID")])
        assert left_behind() == [bystander.pid]
    finally:
        bystander.kill()
        bystander.wait()

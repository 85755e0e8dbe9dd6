"""The run's check for processes left running (tests/leftover_processes.py) finds a process by
the mark it inherited, also one that left the process tree, and nothing once it has ended."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.leftover_processes import MARK, left_running, started_by_this_run

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


def test_a_process_carrying_the_mark_is_found_until_it_ends():
    mark = f"LEFTOVER_CHECK_TEST={os.getpid()}-{id(object())}"
    name, value = mark.split("=")
    child = subprocess.Popen(["sleep", "60"], env={**os.environ, name: value})
    try:
        assert [pid for pid, _ in left_running(mark, grace_s=0)] == [child.pid]
    finally:
        child.kill()
        child.wait()
    assert left_running(mark, grace_s=0) == []


def test_a_process_that_left_the_tree_is_found_by_its_mark():
    mark = f"LEFTOVER_CHECK_TEST={os.getpid()}-{id(object())}"
    name, value = mark.split("=")
    # a shell starts a daemon in a session of its own and ends: the daemon's parent is gone
    shell = subprocess.run(["sh", "-c", "setsid sleep 60 >/dev/null 2>&1 & echo $!"],
                           env={**os.environ, name: value}, capture_output=True, text=True,
                           check=True)
    daemon = int(shell.stdout.split()[0])
    try:
        found = left_running(mark, grace_s=0)
        assert [pid for pid, _ in found] == [daemon] and "sleep 60" in found[0][1]
    finally:
        os.kill(daemon, 9)
    assert left_running(mark, grace_s=10) == []  # gone once reaped by init


def test_a_child_is_this_runs_and_an_orphan_of_another_run_is_not():
    child = subprocess.Popen(["sleep", "60"])
    # an interrupted run's server: a daemon under init, with another run's mark
    shell = subprocess.run(["sh", "-c", "setsid sleep 60 >/dev/null 2>&1 & echo $!"],
                           env={**os.environ, MARK: "another run"}, capture_output=True,
                           text=True, check=True)
    orphan = int(shell.stdout.split()[0])
    try:
        assert started_by_this_run(child.pid)
        assert not started_by_this_run(orphan)
    finally:
        child.kill()
        child.wait()
        os.kill(orphan, 9)

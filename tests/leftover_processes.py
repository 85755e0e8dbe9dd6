"""Processes a test run started and left running: servers (PostgreSQL, llama.cpp, MCP, the
web faces), browsers, Ray's processes, and whatever those started and let go of.

The run puts a mark of its own (its pid) in its environment before any test starts; every
process it starts inherits it, and so do theirs, even those that left the process tree
(``setsid``, a double fork). At the end of the run, a live process carrying the mark was left
behind. Ray starts its workers with an environment of its own: they (and what they start)
carry no mark, and are Ray's to end when its cluster stops. Linux only (``/proc``);
elsewhere nothing is found."""

from __future__ import annotations

import os
import time
from pathlib import Path

MARK = "AUTOBYTEUS_LIKE_TEST_RUN"


def mark_this_run() -> str:
    """Mark this process's environment (children inherit it); the mark, ``NAME=pid``. A run
    started by a test marks its own children with its own pid."""
    os.environ[MARK] = str(os.getpid())
    return f"{MARK}={os.getpid()}"


def _parent(pid: int) -> int:
    stat = Path(f"/proc/{pid}/stat").read_bytes()
    return int(stat[stat.rfind(b")") + 2:].split()[1])


def started_by_this_run(pid: int) -> bool:
    """Whether process ``pid`` descends from this run's process or from one carrying its mark
    (Ray starts its workers with an environment of its own, but under its raylet, which this
    run started). An orphan an interrupted run left is not this run's. False where ``/proc``
    cannot tell."""
    mark = f"{MARK}={os.environ.get(MARK, '')}".encode()
    try:
        for _ in range(64):  # no process tree is deeper
            if pid == os.getpid() or mark in Path(f"/proc/{pid}/environ").read_bytes().split(
                    b"\0"):
                return True
            if pid <= 1:
                return False
            pid = _parent(pid)
    except (OSError, ValueError, IndexError):
        pass
    return False


def _carrying(mark: str) -> list[tuple[int, str]]:
    found = []
    wanted = mark.encode()
    for entry in Path("/proc").iterdir() if Path("/proc").is_dir() else ():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if wanted not in (entry / "environ").read_bytes().split(b"\0"):
                continue
            stat = (entry / "stat").read_bytes()
            if stat[stat.rfind(b")") + 2:][:1] in (b"Z", b"X"):  # ended, not yet reaped
                continue
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(
                errors="replace").strip()
        except OSError:  # gone meanwhile, or not ours to read
            continue
        found.append((int(entry.name), command[:200]))
    return found


def left_running(mark: str, grace_s: float = 30.0) -> list[tuple[int, str]]:
    """Live processes carrying ``mark`` once ``grace_s`` has passed without all of them ending
    (a stopped server's last processes may still be on their way out)."""
    deadline = time.monotonic() + grace_s
    while (found := _carrying(mark)) and time.monotonic() < deadline:
        time.sleep(0.2)  # other processes ending: nothing to wait on but their absence
    return found

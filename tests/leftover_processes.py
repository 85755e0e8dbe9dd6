"""Processes a test run started and left running: servers (PostgreSQL, llama.cpp, MCP, the
web faces), browsers, Ray's processes, and whatever those started and let go of.

The run puts a mark of its own (its pid) in its environment before any test starts; every
process it starts inherits it, and so do theirs, even those that left the process tree
(``setsid``, a double fork). At the end of the run, a live process carrying the mark was left
behind. Linux only (``/proc``); elsewhere nothing is found."""

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

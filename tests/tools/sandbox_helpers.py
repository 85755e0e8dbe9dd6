"""Shared by the sandbox tests: calling a builtin tool in a sandbox, snapshots of a directory,
calls bounded in time (a FIFO must not hang the suite if a regression blocks on it), and a
swapper process that flips a path component between a directory and a symlink."""

from __future__ import annotations

import contextlib
import os
import signal
import stat
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from autobyteus_like.tools import SandboxPolicy, ToolContext, ToolFailure, builtin_tools

TOOLS = builtin_tools()


def call(root: Path, name: str, arguments: dict[str, Any], **limits: Any) -> Any:
    """The tool's result, or the exception it raised (a refusal is a result here)."""
    context = ToolContext(agent="a", sandbox=SandboxPolicy(roots=[root], **limits))
    try:
        return TOOLS.get(name).run(arguments, context)
    except ToolFailure as failure:
        return failure
    except Exception as exc:  # validation errors and the like are refusals too
        return exc


def snapshot(folder: Path) -> dict[str, bytes | str]:
    """Every entry under ``folder`` (without following links, never opening a FIFO) and its
    content."""
    found: dict[str, bytes | str] = {}
    for base, dirs, files in os.walk(folder):
        for name in dirs + files:
            path = Path(base) / name
            mode = path.lstat().st_mode
            found[str(path.relative_to(folder))] = (
                f"link->{os.readlink(path)}" if stat.S_ISLNK(mode)
                else path.read_bytes() if stat.S_ISREG(mode)
                else "dir" if stat.S_ISDIR(mode) else f"special {stat.S_IFMT(mode):o}")
    return found


def unblock(fifo: Path) -> None:
    """Release whoever is blocked opening ``fifo``: a reader gets a writer that closes at once
    (so it reads end-of-file), a writer gets a reader."""
    for flags in (os.O_WRONLY | os.O_NONBLOCK, os.O_RDONLY | os.O_NONBLOCK):
        with contextlib.suppress(OSError):  # ENXIO: nobody is waiting on that side
            os.close(os.open(fifo, flags))


def bounded(action: Callable[[], Any], seconds: float, fifos: tuple[Path, ...] = ()) -> Any:
    """``action()`` run in a thread; an AssertionError if it has not returned within
    ``seconds`` (then ``fifos`` are unblocked so the thread ends and the suite goes on)."""
    outcome: list[Any] = []
    raised: list[BaseException] = []

    def work() -> None:
        try:
            outcome.append(action())
        except BaseException as exc:  # handed to the caller, pytest's own outcomes included
            raised.append(exc)

    worker = threading.Thread(target=work, name="bounded-call")
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        while worker.is_alive():
            for fifo in fifos:
                unblock(fifo)
            worker.join(0.1)
        raise AssertionError(f"the call blocked for more than {seconds} s")
    if raised:
        raise raised[0]
    return outcome[0]


SWAPPER = r"""
import ctypes, os, signal, sys, time
folder, name, outside, limit = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
stop = False
def halt(*_):
    global stop
    stop = True
signal.signal(signal.SIGTERM, halt)
os.chdir(folder)
spare = name + ".swap"
os.symlink(outside, spare)
libc = ctypes.CDLL(None, use_errno=True)
exchange = getattr(libc, "renameat2", None)
a, b = name.encode(), spare.encode()
def flip():
    if exchange is not None:  # atomic: RENAME_EXCHANGE
        if exchange(-100, a, -100, b, 2) == 0:
            return
    os.rename(name, name + ".tmp")       # not atomic: the name is also missing for a moment
    os.rename(spare, name)
    os.rename(name + ".tmp", spare)
count = 0
deadline = time.monotonic() + limit   # never outlive the test by much, whatever happens
print("ready", flush=True)
while not stop and time.monotonic() < deadline:
    flip()
    count += 1
if count % 2:
    flip()  # leave the directory in place
os.unlink(spare)
print(count, flush=True)
"""


@contextmanager
def swapping(folder: Path, name: str, outside: Path, limit_s: float = 20.0
             ) -> Iterator[list[int]]:
    """A separate process flips ``folder/name`` (a directory) with a symlink to ``outside`` as
    fast as it can, until the block ends; the list then holds how many flips it made."""
    process = subprocess.Popen(
        [sys.executable, "-c", SWAPPER, str(folder), name, str(outside), str(limit_s)],
        stdout=subprocess.PIPE, text=True)
    flips: list[int] = []
    try:
        assert process.stdout is not None
        assert process.stdout.readline().strip() == "ready"
        yield flips
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            remaining, _ = process.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            remaining, _ = process.communicate()
        flips.append(int(remaining.strip() or 0))

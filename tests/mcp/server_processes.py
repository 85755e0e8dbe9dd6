"""Starting the test MCP servers, and observing processes and files they touch."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

SERVERS = Path(__file__).parent / "servers"
SDK_SERVER = str(SERVERS / "sdk_server.py")
RAW_SERVER = str(SERVERS / "raw_server.py")


def sdk_stdio() -> tuple[str, list[str]]:
    """The command and arguments of the SDK fixture server over stdio."""
    return sys.executable, [SDK_SERVER, "stdio"]


@contextmanager
def sdk_http(kind: str = "http") -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """The SDK fixture server listening on 127.0.0.1 (``http``: streamable HTTP at /mcp;
    ``json``: the same, replying with JSON bodies; ``sse``: the older SSE transport at /sse):
    its URL and process, killed afterwards."""
    process = subprocess.Popen([sys.executable, SDK_SERVER, kind], stdout=subprocess.PIPE,
                               text=True)
    try:
        line = process.stdout.readline() if process.stdout else ""
        assert line.startswith("PORT "), f"the server did not start: {line!r}"
        path = "/sse" if kind == "sse" else "/mcp"
        yield f"http://127.0.0.1:{int(line.split()[1])}{path}", process
    finally:
        process.kill()
        process.wait()
        if process.stdout:
            process.stdout.close()


def alive(pid: int) -> bool:
    """Whether a process exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            line = stat.read()
    except OSError:
        return False
    return line[line.rfind(b")") + 2:][:1] not in (b"Z", b"X")


def wait_until(condition: Callable[[], bool], timeout: float = 60.0) -> bool:
    """Poll ``condition`` until it holds or the deadline passes. Used only where nothing
    signals the change (another process writing a file, a process ending that is not our
    child), as the preamble allows. The deadline is sized for a loaded 2-core machine: it
    only bounds a failing test, a passing one returns as soon as the condition holds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return condition()


def children_of(pid: int) -> list[int]:
    """Live processes whose parent is ``pid``."""
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat", "rb") as stat:
                    line = stat.read()
            except OSError:
                continue
            fields = line[line.rfind(b")") + 2:].split()
            if int(fields[1]) == pid and fields[0] not in (b"Z", b"X"):
                found.append(int(name))
    return found

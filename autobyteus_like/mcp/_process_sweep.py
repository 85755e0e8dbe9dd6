"""Every process a stdio server started is gone when its connection closes.

The SDK ends a server as the MCP specification says (close its stdin, wait, then SIGTERM and
SIGKILL its process group), but a server that exits promptly leaves its children running, and a
child that called ``setsid`` is outside the group anyway. So each server is started with a
marker in its environment (``AUTOBYTEUS_MCP_SERVER=<token>``), which its descendants inherit,
and when the connection closes every live process carrying the marker is killed. A process that
wipes its own environment escapes this; nothing else of the server's does.

Waiting for the kills uses pidfds (readable when the process is gone), not sleeps.
"""

from __future__ import annotations

import os
import secrets
import select
import signal
import time

__all__ = ["MARKER", "kill_marked", "marked_processes", "new_token"]

MARKER = "AUTOBYTEUS_MCP_SERVER"


def new_token() -> str:
    """A marker value no other server shares."""
    return f"{os.getpid()}-{secrets.token_hex(8)}"


def _state(pid: str) -> str:
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            line = stat.read()
    except OSError:
        return "X"
    return line[line.rfind(b")") + 2:][:1].decode() or "X"


def marked_processes(token: str) -> list[int]:
    """Live (not zombie) processes whose environment carries the marker ``token``."""
    needle = f"\0{MARKER}={token}\0".encode()
    found: list[int] = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as environ:
                carries = needle in b"\0" + environ.read()
        except OSError:  # gone meanwhile, or not ours to read
            continue
        if carries and _state(name) not in "ZX":
            found.append(int(name))
    return found


def kill_marked(token: str, timeout: float = 2.0) -> list[int]:
    """SIGKILL every live process carrying the marker and wait until they are gone; returns
    the pids that were killed."""
    pids = marked_processes(token)
    waiting: dict[int, int] = {}
    for pid in pids:
        try:
            fd = os.pidfd_open(pid)
        except OSError:  # already gone
            continue
        try:
            signal.pidfd_send_signal(fd, signal.SIGKILL)
        except OSError:
            os.close(fd)
            continue
        waiting[fd] = pid
    poller = select.poll()
    for fd in waiting:
        poller.register(fd, select.POLLIN)
    deadline = time.monotonic() + timeout
    try:
        while waiting and (left := deadline - time.monotonic()) > 0:
            for fd, _ in poller.poll(left * 1000):
                poller.unregister(fd)
                os.close(fd)
                waiting.pop(fd, None)
    finally:
        for fd in waiting:
            os.close(fd)
    return pids

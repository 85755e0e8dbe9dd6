"""The launcher of an MCP stdio server started by a Ray host: the server ends with the host.

A host killed with SIGKILL runs no clean-up, and a server that ignores the end of its stdin
(or its children) would live on as an orphan. So a host starts each stdio server through this
file, run by path (``python _ray_mcp_guard.py HOST_PID COMMAND ARGS...``, nothing else
imported): it asks the kernel for a signal when its parent dies (``PR_SET_PDEATHSIG``), runs
the server as its child on the same stdin, stdout and environment, and when the signal comes
kills every process carrying the server's marker (``mcp/_process_sweep.py``: the server and
everything it started) and exits. A normal stop is the toolset's, as locally.
"""

from __future__ import annotations

import ctypes
import importlib.util
import os
import signal
import subprocess
import sys
from pathlib import Path
from types import FrameType, ModuleType

__all__ = ["main"]

_PR_SET_PDEATHSIG = 1


def _sweep() -> ModuleType:
    """``mcp/_process_sweep.py`` (standard library only), loaded by path."""
    path = Path(__file__).resolve().parent.parent / "mcp" / "_process_sweep.py"
    spec = importlib.util.spec_from_file_location("_mcp_process_sweep", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main(argv: list[str]) -> int:
    """Run the server ``argv[1:]`` until it exits, or until the host ``argv[0]`` dies."""
    host, command = int(argv[0]), argv[1:]
    sweep = _sweep()
    server = subprocess.Popen(command)

    def host_gone(signum: int = 0, frame: FrameType | None = None) -> None:
        token = os.environ.get(sweep.MARKER)
        if token:
            sweep.kill_marked(token)  # the server and whatever it started
        server.kill()
        os._exit(1)

    signal.signal(signal.SIGTERM, host_gone)
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
    if os.getppid() != host:  # the host died before the request took effect
        host_gone()
    return server.wait()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

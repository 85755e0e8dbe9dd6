"""``terminal.run`` and ``python.exec``: subprocesses with a timeout and output caps.

A process runs in its own process group; on timeout the whole group is killed and the call
fails with TIMEOUT. Output goes to temporary files, so a flood cannot exhaust memory; each
stream is cut at the sandbox's ``max_output_bytes``. These tools are ``dangerous``: they ask for
approval even when the agent runs tools automatically. The sandbox cannot cut a process off the
network; keep such tools for agents you would trust with a shell.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import IO

from autobyteus_like.errors import ToolFailure
from autobyteus_like.tools.context import ToolContext
from autobyteus_like.tools.decorator import tool
from autobyteus_like.tools.definition import ToolDefinition
from autobyteus_like.tools.invocation import ErrorCode

__all__ = ["process_tools", "run_process"]


def _capped(stream: IO[bytes], limit: int) -> tuple[str, bool]:
    stream.seek(0)
    data = stream.read(limit + 1)
    return data[:limit].decode("utf-8", errors="replace"), len(data) > limit


def run_process(argv: list[str], cwd: Path, timeout_s: float, max_output: int,
                env: dict[str, str] | None = None) -> dict[str, object]:
    """Run ``argv``; return stdout, stderr, exit code, duration and a truncation flag."""
    started = time.monotonic()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        try:
            process = subprocess.Popen(
                argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                start_new_session=True, env=None if env is None else {**os.environ, **env},
            )
        except (OSError, ValueError) as exc:
            raise ToolFailure(ErrorCode.NOT_FOUND, f"cannot start {argv[0]!r}: {exc}") from None
        try:
            code = process.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            raise ToolFailure(ErrorCode.TIMEOUT,
                              f"{argv[0]} ran longer than {timeout_s:g} s and was killed",
                              suggestion="make the command faster or split the work") from None
        stdout, cut_out = _capped(out, max_output)
        stderr, cut_err = _capped(err, max_output)
    return {"stdout": stdout, "stderr": stderr, "exit_code": code,
            "duration_ms": round((time.monotonic() - started) * 1000),
            "truncated": cut_out or cut_err}


def _seconds(timeout_ms: int, ctx: ToolContext) -> float:
    if timeout_ms <= 0:
        raise ToolFailure(ErrorCode.INVALID_ARGS, "timeout_ms must be positive")
    return min(timeout_ms / 1000, ctx.sandbox.timeout_s)


def process_tools() -> list[ToolDefinition]:
    """Fresh definitions of ``terminal.run`` and ``python.exec``."""

    @tool(name="terminal.run", category="exec", dangerous=True, masked_arguments=("env",))
    def terminal_run(cmd: list[str], ctx: ToolContext, cwd: str = ".", timeout_ms: int = 30000,
                     env: dict[str, str] | None = None) -> dict[str, object]:
        """Run a command (an argv list, no shell) in the workspace.

        Args:
            cmd: The program and its arguments, e.g. ["pytest", "-q"].
            cwd: The working directory.
            timeout_ms: Kill the command after this many milliseconds.
            env: Extra environment variables (masked in logs).
        """
        if not cmd or not all(isinstance(part, str) and part for part in cmd):
            raise ToolFailure(ErrorCode.INVALID_ARGS, "cmd must be a non-empty list of strings")
        directory = ctx.sandbox.resolve(cwd, argument="cwd")
        if not directory.is_dir():
            raise ToolFailure(ErrorCode.NOT_FOUND, f"cwd {cwd!r} is not a directory")
        return run_process(cmd, directory, _seconds(timeout_ms, ctx),
                           ctx.sandbox.max_output_bytes, env)

    @tool(name="python.exec", category="exec", dangerous=True)
    def python_exec(code: str, ctx: ToolContext, timeout_ms: int = 60000) -> dict[str, object]:
        """Run Python code in a separate, isolated interpreter in the workspace.

        Args:
            code: The program; print what you want to see.
            timeout_ms: Kill it after this many milliseconds.
        """
        return run_process([sys.executable, "-I", "-c", code], ctx.sandbox.roots[0],
                           _seconds(timeout_ms, ctx), ctx.sandbox.max_output_bytes)

    return [terminal_run, python_exec]

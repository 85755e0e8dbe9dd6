"""``terminal.run`` and ``python.exec``: subprocesses that see a minimal environment, stop at a
timeout, print capped output and leave nothing running.

Environment. A child never inherits the agent's environment (API keys live there). It gets
exactly: ``PATH`` (the host's), ``HOME`` (the sandbox's first root), ``LANG`` (the host's, else
``C.UTF-8``), ``TERM=dumb`` (output goes to an LLM, not a terminal) and ``TMPDIR`` (a fresh
private directory for this call, removed afterwards); then the host variables the policy names
in ``SandboxPolicy.pass_env`` (if set); then, for ``terminal.run``, the call's own ``env``.
Later sources win.

Processes. Each call runs under a small supervisor process (``process_supervisor``) that is a
child subreaper: when the call returns, normally or by TIMEOUT, every process the command
started has been SIGKILLed and reaped, including background jobs, ``setsid`` children and
double-forked daemons. If the supervisor stops responding (the command SIGSTOPs it) this process
kills the supervisor's whole tree itself after a short grace (``_GRACE_S``); if the supervisor
is SIGKILLed (the command can: it runs as the same user) this process kills everything left in
the call's session and reports INTERNAL. The one gap: a process that left the call's session
(``setsid``) *before* its supervisor was SIGKILLed is beyond reach; closing it needs a cgroup or
a PID namespace. A process stuck in uninterruptible sleep survives even SIGKILL; the call then
fails with INTERNAL naming it.
The sandbox cannot cut a process off the network, and nothing stops a command asking a daemon
outside the call (ssh, at, systemd-run) to run something; these tools are ``dangerous``, they
ask for approval even when the agent runs tools automatically.

Output. Each stream is cut at the sandbox's ``max_output_bytes``; the supervisor drains the
pipes and keeps at most that much (in a temporary file), so a flood fills neither memory nor
disk.
"""

from __future__ import annotations

import contextlib
import errno
import marshal
import os
import select
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from autobyteus_like.errors import ToolFailure
from autobyteus_like.tools._context import CancelFlag, ToolContext
from autobyteus_like.tools._decorator import tool
from autobyteus_like.tools._definition import ToolDefinition
from autobyteus_like.tools._invocation import ErrorCode
from autobyteus_like.tools._sandbox import SandboxPolicy
from autobyteus_like.tools._sandbox_tree import open_directory
from autobyteus_like.tools.builtin import _process_supervisor as process_supervisor
from autobyteus_like.tools.builtin._process_supervisor import (
    descendants,
    kill_all,
    session_members,
)

__all__ = ["child_environment", "process_tools", "run_process"]

_SUPERVISOR = [sys.executable, "-I", "-S", process_supervisor.__file__]
_GRACE_S = 1.0
"""How long past the timeout the supervisor may take to kill and report before this process
takes over (it only needs that long when the command has stopped it)."""
_CANCEL_POLL_S = 0.1
"""How often a running command checks whether its call was cancelled."""
_SWEEP_ROUND_S = 0.01
_SWEEP_LIMIT_S = 5.0
"""How long this process keeps killing before it reports processes it could not kill (one in
uninterruptible sleep, e.g. on a hung network file system, ignores even SIGKILL)."""


def _text(value: object, what: str) -> str:
    """``value`` if it is a string the OS can take: valid UTF-8 text without NUL."""
    if not isinstance(value, str):
        raise ToolFailure(ErrorCode.INVALID_ARGS, f"{what} must be a string")
    if "\x00" in value:
        raise ToolFailure(ErrorCode.INVALID_ARGS, f"{what} contains a NUL byte")
    try:
        value.encode()
    except UnicodeEncodeError:
        raise ToolFailure(ErrorCode.INVALID_ARGS,
                          f"{what} contains a lone surrogate (not valid Unicode text)") from None
    return value


def child_environment(sandbox: SandboxPolicy, tmpdir: str,
                      extra: dict[str, str] | None = None) -> dict[str, str]:
    """The whole environment of a child: the minimal set, then ``pass_env``, then ``extra``."""
    env = {"PATH": os.environ.get("PATH", os.defpath), "HOME": str(sandbox.roots[0]),
           "LANG": os.environ.get("LANG", "C.UTF-8"), "TERM": "dumb", "TMPDIR": tmpdir}
    env.update((name, os.environ[name]) for name in sandbox.pass_env if name in os.environ)
    for name, value in (extra or {}).items():
        _text(name, "an env variable name")
        if not name or "=" in name:
            raise ToolFailure(ErrorCode.INVALID_ARGS,
                              f"env variable name {name!r} must be non-empty and without '='")
        env[name] = _text(value, f"env variable {name!r}")
    return env


def _capped(stream: IO[bytes], limit: int) -> tuple[str, bool]:
    stream.seek(0)
    data = stream.read(limit + 1)
    return data[:limit].decode("utf-8", errors="replace"), len(data) > limit


def _report(raw: bytes) -> dict[str, str]:
    """The supervisor's report line as {word: rest}; anything unexpected is a crash text."""
    text = raw.decode("utf-8", errors="replace")
    word, _, rest = text.rstrip("\n").partition(" ")
    if "\n" in text.rstrip("\n") or word not in ("exit", "timeout", "cancelled", "error"):
        return {"crash": text}
    return {word: rest}


def _kill_until_gone(find: Callable[[], list[int]]) -> list[int]:
    """SIGKILL whatever ``find`` lists until it lists nothing (a process may fork between the
    scan and the kill); return what is still alive after ``_SWEEP_LIMIT_S``. These processes
    are not our children, so no event tells us when they have died: poll ``/proc``."""
    deadline = time.monotonic() + _SWEEP_LIMIT_S
    while (victims := find()) and time.monotonic() < deadline:
        kill_all(victims)
        time.sleep(_SWEEP_ROUND_S)
    return victims


def _take_over(supervisor: subprocess.Popen[bytes]) -> list[int]:
    """Kill the supervisor's tree from here (it is stopped or too slow, or we were interrupted),
    then the supervisor itself (its process group, as it leads one). Returns survivors."""
    survivors = _kill_until_gone(lambda: descendants(supervisor.pid))
    with contextlib.suppress(ProcessLookupError):  # it has exited meanwhile
        os.killpg(supervisor.pid, signal.SIGKILL)
    return survivors


@dataclass(frozen=True)
class _Outcome:
    report: dict[str, str]
    status: int
    """The supervisor's own exit status (0 unless it crashed or was killed)."""
    overdue: bool
    """Whether this process had to take over because the supervisor missed the deadline."""
    survivors: list[int]
    """Processes of the call this process failed to kill (normally none)."""


def _read_report(supervisor: subprocess.Popen[bytes], deadline: float,
                 cancel: CancelFlag | None) -> tuple[bytes, bool]:
    """The supervisor's report, read until it exits; (report, overdue). Cancelling (the call's
    timeout, the agent stopping) closes the supervisor's stdin: it kills everything at once."""
    assert supervisor.stdin is not None and supervisor.stdout is not None
    out = supervisor.stdout.fileno()
    chunks: list[bytes] = []
    while True:
        if cancel is not None and cancel.is_set() and not supervisor.stdin.closed:
            supervisor.stdin.close()
            deadline = min(deadline, time.monotonic() + _GRACE_S)
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return b"".join(chunks), True
        if select.select([out], [], [], min(remaining, _CANCEL_POLL_S))[0]:
            data = os.read(out, 65536)
            if not data:
                return b"".join(chunks), False
            chunks.append(data)


def _supervise(argv: list[str], cwd: Path, env: dict[str, str], timeout_s: float,
               max_output: int, out: IO[bytes], err: IO[bytes],
               cancel: CancelFlag | None) -> _Outcome:
    """Run ``argv`` under a supervisor and make sure nothing of it is left afterwards."""
    spec = marshal.dumps({"argv": argv, "env": env, "timeout_s": timeout_s,
                          "max_output": max_output, "stdout_fd": out.fileno(),
                          "stderr_fd": err.fileno()})
    try:
        supervisor = subprocess.Popen(
            _SUPERVISOR, cwd=cwd, env={}, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, pass_fds=(out.fileno(), err.fileno()),
            start_new_session=True)
    except FileNotFoundError:
        raise ToolFailure(ErrorCode.NOT_FOUND, f"cwd {str(cwd)!r} no longer exists") from None
    assert supervisor.stdin is not None
    raw, overdue, survivors = b"", False, []
    try:
        with contextlib.suppress(BrokenPipeError):  # it died at once; its status says why
            supervisor.stdin.write(len(spec).to_bytes(8, "big") + spec)
            supervisor.stdin.flush()
        raw, overdue = _read_report(supervisor, time.monotonic() + timeout_s + _GRACE_S,
                                    cancel)
    finally:
        with contextlib.suppress(BrokenPipeError):
            supervisor.stdin.close()
        if not overdue:  # it reported, or we were interrupted: it is ending by itself
            with contextlib.suppress(subprocess.TimeoutExpired):
                supervisor.wait(_GRACE_S)
        if supervisor.poll() is None:  # overdue, or interrupted while waiting
            survivors = _take_over(supervisor)
            assert supervisor.stdout is not None
            raw += supervisor.stdout.read()  # it is dead: the pipe ends
            supervisor.wait()
        if supervisor.returncode != 0:
            # It died without cleaning up: kill what is left of its session, where the command
            # and all it started live unless they left it. Its pid names the session; that pid
            # was reaped only just now, and pids are reused only after pid_max others.
            survivors += _kill_until_gone(lambda: session_members(supervisor.pid))
        if supervisor.stdout is not None:
            supervisor.stdout.close()  # its report is read (or lost with it)
    return _Outcome(_report(raw), supervisor.returncode, overdue, survivors)


def _check(outcome: _Outcome, argv0: str, timeout_s: float) -> int:
    """The command's exit code, or the ToolFailure the outcome amounts to."""
    report = outcome.report
    if outcome.survivors:
        raise ToolFailure(ErrorCode.INTERNAL,
                          f"processes {outcome.survivors} started by {argv0} did not die of "
                          "SIGKILL (uninterruptible sleep?); they are still running")
    if "error" in report:
        number, _, reason = report["error"].partition(" ")
        if number == str(errno.E2BIG):
            raise ToolFailure(ErrorCode.INVALID_ARGS,
                              f"cannot start {argv0!r}: its arguments and environment are too "
                              f"large ({reason})", suggestion="pass large data in a file")
        raise ToolFailure(ErrorCode.NOT_FOUND, f"cannot start {argv0!r}: {reason}")
    if "cancelled" in report:
        raise ToolFailure(ErrorCode.TIMEOUT,
                          f"{argv0} was cancelled (its call timed out or the agent stopped) "
                          "and everything it started was killed")
    if "timeout" in report or outcome.overdue:
        raise ToolFailure(ErrorCode.TIMEOUT,
                          f"{argv0} ran longer than {timeout_s:g} s and was killed",
                          suggestion="make the command faster or split the work")
    if outcome.status == 0 and report.get("exit", "").removeprefix("-").isdigit():
        return int(report["exit"])
    if outcome.status < 0:
        raise ToolFailure(ErrorCode.INTERNAL,
                          f"the process supervising {argv0} was killed by signal "
                          f"{-outcome.status} before the command finished; everything left in "
                          "its session was killed",
                          suggestion="do not signal the parent process of the command")
    raise ToolFailure(ErrorCode.INTERNAL, f"the process supervising {argv0} failed (status "
                      f"{outcome.status}): {report.get('crash', '')[-2000:]}")


def run_process(argv: list[str], cwd: Path, sandbox: SandboxPolicy, timeout_s: float,
                extra_env: dict[str, str] | None = None,
                cancel: CancelFlag | None = None) -> dict[str, object]:
    """Run ``argv`` in ``cwd`` (see the module docstring); return stdout, stderr, exit code,
    duration and a truncation flag."""
    for index, part in enumerate(argv):
        _text(part, f"cmd[{index}]")
    started = time.monotonic()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
            tempfile.TemporaryDirectory(prefix="autobyteus-call-") as tmpdir:
        env = child_environment(sandbox, tmpdir, extra_env)
        outcome = _supervise(argv, cwd, env, timeout_s, sandbox.max_output_bytes, out, err,
                             cancel)
        code = _check(outcome, argv[0], timeout_s)
        stdout, cut_out = _capped(out, sandbox.max_output_bytes)
        stderr, cut_err = _capped(err, sandbox.max_output_bytes)
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
        if not cmd or not cmd[0] or not all(isinstance(part, str) for part in cmd):
            raise ToolFailure(ErrorCode.INVALID_ARGS,
                              "cmd must be a non-empty list of strings, the program first")
        with ctx.sandbox.open(cwd, argument="cwd") as target:
            descriptor = target.walk(open_directory).value
        try:
            # The process starts in the directory the walk opened, named through our own
            # descriptor: swapping a path component for a symlink meanwhile changes nothing.
            held = Path(f"/proc/{os.getpid()}/fd/{descriptor}")
            return run_process(cmd, held, ctx.sandbox, _seconds(timeout_ms, ctx), env,
                               ctx.cancelled)
        finally:
            os.close(descriptor)

    @tool(name="python.exec", category="exec", dangerous=True)
    def python_exec(code: str, ctx: ToolContext, timeout_ms: int = 60000) -> dict[str, object]:
        """Run Python code in a separate, isolated interpreter in the workspace.

        Args:
            code: The program; print what you want to see.
            timeout_ms: Kill it after this many milliseconds.
        """
        _text(code, "code")
        return run_process([sys.executable, "-I", "-c", code], ctx.sandbox.roots[0],
                           ctx.sandbox, _seconds(timeout_ms, ctx), cancel=ctx.cancelled)

    return [terminal_run, python_exec]

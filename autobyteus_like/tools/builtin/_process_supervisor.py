"""The supervisor of one ``terminal.run`` / ``python.exec`` call: nothing the command starts
outlives the call.

``process_tools`` starts this file as ``python -I -S _process_supervisor.py`` (by path, standard
library only, so no site-packages and no package import: start-up stays near 20 ms). It

1. makes itself a *child subreaper* (``prctl(PR_SET_CHILD_SUBREAPER)``), so every process the
   command orphans, daemons and ``setsid`` children included, is reparented to it and not to
   init. The flag is per process, which is why it lives here and never in the agent's process;
2. starts the command in its own process group inside the supervisor's session (the caller
   starts the supervisor in a new session, so the session id is the supervisor's pid, known to
   the caller without asking), stdin ``/dev/null``, stdout and stderr into pipes it drains
   itself, copying at most ``max_output + 1`` bytes per stream to the caller's files and
   discarding the rest (a flood costs neither memory nor disk);
3. waits for the command to exit or for the deadline, reaping orphans along the way;
4. SIGKILLs every remaining descendant (found by walking the ``/proc`` parent links from itself)
   and reaps them until it has no child left; only then does it report and exit. So on a normal
   return as on a timeout, no process the call started is left running.

It ignores SIGTERM, SIGINT and SIGHUP (a command's ``kill $PPID`` does not end supervision);
the signals the command gets start at their defaults with nothing blocked.

Protocol. stdin: an 8-byte big-endian length, then a ``marshal``-ed dict (``argv``, ``env``,
``timeout_s``, ``max_output``, ``stdout_fd``, ``stderr_fd``; the two fds are inherited files);
then stdin stays open for the whole call. Its end (the caller closed it to cancel the call, or
the caller's process died) makes the supervisor kill everything at once. stdout: one line,
``exit CODE`` (negative: killed by that signal), ``timeout``, ``cancelled`` or ``error ERRNO
MESSAGE`` (the command could not be started). Anything else on stdout/stderr is a crash of the
supervisor itself.

The process-table helpers below are also used by the caller when the supervisor itself is
stopped or killed (see ``process_tools``).
"""

from __future__ import annotations

import ctypes
import errno
import marshal
import os
import select
import signal
import time
from collections.abc import Iterator

# Standard library only, and only cheap modules (contextlib alone would add ~5 ms per call):
# this file runs as its own interpreter once per tool call.

__all__ = ["descendants", "kill_all", "main", "session_members"]

_PR_SET_CHILD_SUBREAPER = 36  # from <linux/prctl.h>
_CHUNK = 65536
_KILL_ROUND_S = 0.05


def _process_table() -> Iterator[tuple[int, str, int, int]]:
    """(pid, state, ppid, session) of every process visible in /proc."""
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as stat:
                line = stat.read()
        except OSError:  # exited while we looked
            continue
        # The command name is in parentheses and may itself contain ") ", so split at the last.
        fields = line[line.rfind(b")") + 2:].split()
        yield int(name), fields[0].decode(), int(fields[1]), int(fields[3])


def descendants(root: int) -> list[int]:
    """Live (not zombie) processes below ``root`` in the parent tree."""
    children: dict[int, list[int]] = {}
    alive: set[int] = set()
    for pid, state, ppid, _ in _process_table():
        children.setdefault(ppid, []).append(pid)
        if state not in "ZX":
            alive.add(pid)
    found, frontier = [], children.get(root, [])
    while frontier:
        found.extend(frontier)
        frontier = [grandchild for pid in frontier for grandchild in children.get(pid, [])]
    return [pid for pid in found if pid in alive]


def session_members(session: int) -> list[int]:
    """Live processes whose session id is ``session``."""
    return [pid for pid, state, _, sid in _process_table()
            if sid == session and state not in "ZX"]


def kill_all(pids: list[int]) -> None:
    """SIGKILL each of ``pids`` (one that has died meanwhile is skipped)."""
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            continue


class _Sink:
    """Copies one output pipe into the caller's file, keeping at most ``limit + 1`` bytes (the
    extra byte tells the caller the stream was cut) and discarding the rest."""

    def __init__(self, file_fd: int, limit: int) -> None:
        self.file_fd, self.room = file_fd, limit + 1

    def pump(self, pipe: int) -> bool:
        """Move one chunk; False at end of stream."""
        data = os.read(pipe, _CHUNK)
        if not data:
            return False
        kept = memoryview(data)[:max(self.room, 0)]
        self.room -= len(kept)
        while kept:
            kept = kept[os.write(self.file_fd, kept):]
        return True


class _Supervisor:
    def __init__(self, max_output: int, stdout_fd: int, stderr_fd: int) -> None:
        self.max_output, self.files = max_output, (stdout_fd, stderr_fd)
        self.wake_r, self.wake_w = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
        # SIGCHLD must wake poll(): a Python handler plus the wakeup fd turns it into an event.
        signal.set_wakeup_fd(self.wake_w, warn_on_full_buffer=False)
        signal.signal(signal.SIGCHLD, lambda *_: None)
        self.pid = 0
        self.status: int | None = None
        self.pipes: dict[int, _Sink] = {}
        self.cancelled = False

    def start(self, argv: list[str], env: dict[str, str]) -> None:
        """Start the command: own process group, default signals, stdin /dev/null, stdout
        and stderr into our pipes."""
        for fd in self.files:
            os.set_inheritable(fd, False)  # the command writes to pipes, never to these files
        out_r, out_w = os.pipe2(os.O_CLOEXEC)
        err_r, err_w = os.pipe2(os.O_CLOEXEC)
        self.pipes = {out_r: _Sink(self.files[0], self.max_output),
                      err_r: _Sink(self.files[1], self.max_output)}
        # posix_spawnp looks the program up in *our* PATH, so make it the command's.
        os.environ["PATH"] = env.get("PATH", os.defpath)
        try:
            self.pid = os.posix_spawnp(
                argv[0], argv, env, setpgroup=0, setsigmask=(),
                setsigdef=signal.valid_signals() - {signal.SIGKILL, signal.SIGSTOP},
                file_actions=[(os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
                              (os.POSIX_SPAWN_DUP2, out_w, 1), (os.POSIX_SPAWN_DUP2, err_w, 2)])
        finally:
            os.close(out_w)
            os.close(err_w)

    def reap(self) -> bool:
        """Reap every exited child, noting the command's status; False once no child is left."""
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return False
            if pid == 0:
                return True
            if pid == self.pid:
                self.status = os.waitstatus_to_exitcode(status)

    def _drain_wakeups(self) -> None:
        try:
            while os.read(self.wake_r, _CHUNK):
                continue
        except BlockingIOError:  # drained
            return

    def wait(self, deadline: float) -> bool:
        """Copy output until the command exits (True), the deadline passes or the caller
        cancels (False; ``cancelled`` says which)."""
        poller = select.poll()
        for fd in (*self.pipes, self.wake_r):
            poller.register(fd, select.POLLIN)
        poller.register(0, select.POLLIN | select.POLLHUP)
        while self.status is None:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            for fd, _ in poller.poll(remaining * 1000):
                if fd == 0:
                    if not os.read(0, _CHUNK):  # the caller is gone, or cancels the call
                        self.cancelled = True
                        return False
                elif fd == self.wake_r:
                    self._drain_wakeups()
                    self.reap()
                elif not self.pipes[fd].pump(fd):
                    poller.unregister(fd)
        return True

    def _settle(self) -> None:
        """Wait for a child to die (SIGCHLD); the timeout covers a victim that is not our
        child and whose death therefore does not signal us."""
        select.select([self.wake_r], [], [], _KILL_ROUND_S)
        self._drain_wakeups()

    def kill_everything(self) -> None:
        """SIGKILL every descendant and reap until no child is left. A process may fork
        between the scan and the kill; its orphans come to us, so the next round finds them."""
        me = os.getpid()
        while self.reap():
            kill_all(descendants(me))
            self._settle()

    def drain(self) -> None:
        """Copy what the dead writers left in the pipes. Every writer is dead, so each pipe
        ends; the timeout only guards against a pipe smuggled to a process outside the tree."""
        for pipe, sink in self.pipes.items():
            while select.select([pipe], [], [], 1.0)[0] and sink.pump(pipe):
                pass
            os.close(pipe)


def _read_exactly(fd: int, size: int) -> bytes:
    """``size`` bytes from ``fd`` (the caller's spec); a short read means the caller is gone."""
    data = b""
    while len(data) < size:
        piece = os.read(fd, size - len(data))
        if not piece:
            raise SystemExit(0)  # nothing was started yet: nothing to clean up
        data += piece
    return data


def _report(line: str) -> None:
    os.write(1, f"{line}\n".encode())


def main() -> None:
    for name in ("SIGTERM", "SIGINT", "SIGHUP"):
        signal.signal(getattr(signal, name), signal.SIG_IGN)
    spec = marshal.loads(_read_exactly(0, int.from_bytes(_read_exactly(0, 8), "big")))
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER) failed")
    supervisor = _Supervisor(spec["max_output"], spec["stdout_fd"], spec["stderr_fd"])
    try:
        supervisor.start(spec["argv"], spec["env"])
    except (OSError, ValueError) as exc:
        code = exc.errno if isinstance(exc, OSError) and exc.errno else errno.EINVAL
        _report(f"error {code} {getattr(exc, 'strerror', None) or exc}")
        return
    try:
        finished = supervisor.wait(time.monotonic() + spec["timeout_s"])
    finally:
        supervisor.kill_everything()
    supervisor.drain()
    if finished:
        _report(f"exit {supervisor.status}")
    else:
        _report("cancelled" if supervisor.cancelled else "timeout")


if __name__ == "__main__":
    main()
    os._exit(0)  # everything is written and reaped; skip interpreter teardown (~5 ms)

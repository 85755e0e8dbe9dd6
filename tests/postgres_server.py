"""A real PostgreSQL server for the tests: a private cluster in a temporary folder, started on a
free port of 127.0.0.1 and stopped at the end (Debian's ``postgresql`` package provides the
binaries; .ci/run installs it). Skips with a clear reason where no server binary exists.

A test server without fsync keeps its cluster in memory (``/dev/shm``) where that has room:
each test's fresh database is a 7.5 MB copy of the template, a run makes a few hundred MB of
them, and on disk their removal at the end waited on the writeback of all of it (20 to 90 s);
in memory it takes a second or two. A durable server (benchmarks) stays on disk."""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

import pytest

__all__ = ["PostgresServer", "find_binaries"]


def find_binaries() -> Path | None:
    """The folder holding initdb and postgres, if a server is installed."""
    for candidate in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True):
        if (Path(candidate) / "initdb").exists():
            return Path(candidate)
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


MEMORY = Path("/dev/shm")
MEMORY_ROOM = 4 << 30
"""The free space a memory file system needs for the test server's cluster to go there."""


def _folder(durable: bool) -> Path:
    """A new folder for a cluster: in memory for a test server where there is room."""
    if not durable and MEMORY.is_dir() and os.access(MEMORY, os.W_OK):
        room = os.statvfs(MEMORY)
        if room.f_bavail * room.f_frsize >= MEMORY_ROOM:
            return Path(tempfile.mkdtemp(prefix="autobyteus-pg-", dir=MEMORY))
    return Path(tempfile.mkdtemp(prefix="autobyteus-pg-"))


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class PostgresServer:
    """``start()`` a cluster in a folder of its own under the system's temporary folder (the
    server's user must be able to reach it); ``url(database)``; ``stop()`` removes it."""

    def __init__(self) -> None:
        binaries = find_binaries()
        if binaries is None:
            pytest.skip("no PostgreSQL server binaries (install Debian's postgresql package)")
        self.binaries = binaries
        self.folder = Path()  # start() makes it
        self.port = _free_port()
        self.user: str | None = None
        if os.geteuid() == 0:  # the server refuses to run as root
            try:
                self.user = pwd.getpwnam("postgres").pw_name
            except KeyError:
                pytest.skip("running as root and there is no 'postgres' user to run the server")
        self._process: subprocess.Popen[bytes] | None = None
        self._durable = False

    def _run(self, *args: str) -> None:
        done = subprocess.run(list(args), capture_output=True, text=True, user=self.user,
                              timeout=120)
        if done.returncode != 0:
            raise RuntimeError(f"{args[0]} failed: {done.stdout}{done.stderr}")

    def start(self, durable: bool = False) -> PostgresServer:
        """Start the server; ``durable``: with fsync (as a real server runs; benchmarks),
        else without (tests, which only need it fast)."""
        self.folder = _folder(durable)
        data = self.folder / "data"
        data.mkdir()
        if self.user is not None:
            entry = pwd.getpwnam(self.user)
            os.chown(self.folder, entry.pw_uid, entry.pw_gid)
            os.chown(data, entry.pw_uid, entry.pw_gid)
        self._run(str(self.binaries / "initdb"), "-D", str(data), "-U", "postgres",
                  "--auth=trust", "-E", "UTF8", "--no-sync")
        self._durable = durable
        # The port was free when chosen, not reserved: another process (the other test worker's
        # server, any client's outgoing connection) may have taken it since. A server that
        # ends at once gets another port, twice at most.
        for _ in range(2):
            if self._launch(give_up=False):
                return self
            self.port = _free_port()
        self._launch()
        return self

    def _launch(self, give_up: bool = True) -> bool:
        """Start the server on its data and port; False if it ended before accepting
        connections and ``give_up`` is False (else: stop, raise)."""
        data, durable = self.folder / "data", self._durable
        self._process = subprocess.Popen(
            [str(self.binaries / "postgres"), "-D", str(data), "-p", str(self.port),
             "-k", str(self.folder), "-c", "listen_addresses=127.0.0.1",
             *([] if durable else ["-c", "fsync=off", "-c", "full_page_writes=off"])],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, user=self.user,
            start_new_session=True)
        return self._wait_ready(give_up)

    def restart(self) -> None:
        """Stop the server ("fast": every connection is dropped) and start it again on the
        same port and data (a server restart as clients meet it)."""
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            os.killpg(process.pid, signal.SIGINT)
            process.wait(30)
        self._launch()

    def _wait_ready(self, give_up: bool = True) -> bool:
        import psycopg

        # No event tells when the server accepts connections: poll with a deadline.
        deadline = time.monotonic() + 60
        while True:
            try:
                psycopg.connect(self.url("postgres"), connect_timeout=2).close()
                return True
            except psycopg.OperationalError:
                ended = self._process is not None and self._process.poll() is not None
                if ended and not give_up:
                    self._process = None
                    return False
                if time.monotonic() > deadline or ended:
                    self.stop()
                    raise RuntimeError("the PostgreSQL test server did not start") from None
                time.sleep(0.05)

    def url(self, database: str) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def new_database(self) -> str:
        """A fresh, empty database; its URL."""
        import psycopg

        name = f"t_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(self.url("postgres"), autocommit=True) as connection:
            connection.execute(f"CREATE DATABASE {name}")
        return self.url(name)

    def stop(self) -> None:
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            os.killpg(process.pid, signal.SIGINT)  # "fast" shutdown
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        if self.folder != Path():
            shutil.rmtree(self.folder, ignore_errors=True)

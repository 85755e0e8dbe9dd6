"""Faults of a real PostgreSQL server in the middle of a turn: a statement timeout (another
connection locks the tables the run writes), a terminated backend and a server restart, each at
random moments of a CLI run of the crash test's team. A dropped connection is reconnected and the
transaction retried without applying it twice; a write that fails for good leaves the session
unfinished and resumable. Afterwards the session resumes to the same end as an undisturbed run,
no non-idempotent call ran twice, and every result a run printed is stored as printed."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.store.test_crash_resume import (
    _command,
    _needs_message,
    _project,
    _state,
    assert_same_end,
)

pytestmark = pytest.mark.slow  # real processes and servers, several seconds

STATEMENT_TIMEOUT = "?options=-c%20statement_timeout%3D300"
SQLITE_BUSY_S = 2.0
"""The runs' SQLite busy timeout here (``$AUTOBYTEUS_LIKE_SQLITE_BUSY_TIMEOUT_S``; 10 s by
default): the locked-SQLite case holds the lock just past it."""


@pytest.fixture(scope="module")
def private_server() -> Iterator[Any]:
    """A server of this module's own: restarting it disturbs no other test."""
    from tests.postgres_server import PostgresServer

    server = PostgresServer().start()
    yield server
    server.stop()


def _terminate(url: str) -> Callable[[], None]:
    def fault() -> None:
        import psycopg

        with psycopg.connect(url.split("?")[0], autocommit=True) as connection:
            connection.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                               "WHERE datname = current_database() AND pid <> pg_backend_pid()")
    return fault


def _lock_tables(url: str) -> Callable[[], None]:
    def fault() -> None:
        import psycopg

        with psycopg.connect(url.split("?")[0], autocommit=True) as connection:
            connection.execute("BEGIN")
            connection.execute("LOCK TABLE calls, messages, turns, mail IN EXCLUSIVE MODE")
            time.sleep(1.0)  # the run's writes wait past their statement timeout (300 ms)
            connection.execute("ROLLBACK")
    return fault


def _run(folder: Path, store: str, fault: Callable[[], None] | None, after: float
         ) -> tuple[int, str, bool, float]:
    """One CLI run; ``fault`` happens ``after`` seconds past its first event. Its exit code,
    its output, whether the fault landed while it ran, how long it ran after that event."""
    message = "go" if _needs_message(store) else None
    child = subprocess.Popen(_command(folder, store, message), cwd=folder,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env={**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONFAULTHANDLER": "1"})
    assert child.stdout is not None
    first = child.stdout.readline()
    began = time.perf_counter()
    landed = False
    if fault is not None:
        try:
            child.wait(after)  # the chosen moment: the fault lands wherever the run is
        except subprocess.TimeoutExpired:
            landed = True
            fault()
    try:
        out, err = child.communicate(timeout=60)
    except subprocess.TimeoutExpired:  # hung: its threads' stacks (faulthandler) say where
        child.send_signal(signal.SIGABRT)
        out, err = child.communicate(timeout=30)
        pytest.fail(f"the run hung:\n{out[-3000:]}\n{err[:6000]}")
    return child.returncode, first + out + "\n" + err, landed, time.perf_counter() - began


def _folder(path: Path) -> Path:
    path.mkdir()
    return _project(path)


def _to_the_end(folder: Path, store: str, fault: Callable[[], None] | None, after: float
                ) -> tuple[dict[str, Any], list[str], str, bool, float, int]:
    first_code, output, landed, active = _run(folder, store, fault, after)
    outputs = [output]
    for _ in range(6):  # then resumes with no fault, until nothing is left
        code, output, _, _ = _run(folder, store, None, 0.0)
        outputs.append(output)
        if code == 0 and "has nothing unfinished" in output:  # its answer shown again
            break
        assert code == 0, "\n".join(outputs)
    else:
        pytest.fail("the session never finished:\n" + "\n".join(outputs[-2:]))
    effects = (folder / "effects.log").read_text().splitlines()
    return _state(store), effects, "\n".join(outputs), landed, active, first_code


@pytest.fixture(scope="module")
def reference(private_server, tmp_path_factory) -> tuple[dict[str, Any], float]:
    """An undisturbed run's end, and how long its run went on after its first event."""
    expected, _, _, _, active, _ = _to_the_end(
        _folder(tmp_path_factory.mktemp("faults") / "reference"),
        private_server.new_database() + STATEMENT_TIMEOUT, None, 0.0)
    assert expected["lead"]["answers"][-1] == "All done: the worker reported."
    return expected, active


@pytest.mark.parametrize("kind", ["statement_timeout", "terminated_backend", "server_restart"])
def test_a_database_fault_mid_turn_leaves_a_session_that_resumes_to_the_same_end(
        private_server, reference, tmp_path, kind):
    expected, active = reference
    seed = int(os.environ.get("FAULT_SEED") or random.randrange(1 << 30))
    moments = [0.0, random.Random(seed).uniform(0.1, 0.7)]
    landed, outputs = [], []
    for number, fraction in enumerate(moments):
        folder = _folder(tmp_path / f"run{number}")
        store = private_server.new_database() + STATEMENT_TIMEOUT
        fault = {"statement_timeout": _lock_tables(store),
                 "terminated_backend": _terminate(store),
                 "server_restart": private_server.restart}[kind]
        state, effects, output, hit, _, code = _to_the_end(folder, store, fault,
                                                           fraction * active)
        landed.append(hit)
        where = f"(seed {seed}, fault at {fraction:.2f} of {active:.2f} s)"
        if kind != "statement_timeout":  # reconnected and retried: the run itself finished
            assert code == 0, f"{where}\n{output[-3000:]}"
        outputs.append(output)
        assert_same_end(state, expected, effects, output, where)
        for agent in ("lead", "worker"):
            assert set(state[agent]["turn_states"]) == {"done"}, where
        assert state["mail"] == expected["mail"], where
    assert any(landed), f"no fault landed while a run was going (seed {seed})"
    if kind == "statement_timeout":  # the run that met it stopped; a resume finished it
        assert any("canceling statement due to statement timeout" in output
                   for output in outputs), f"no write timed out (seed {seed})"


def _lock_sqlite(path: Path) -> Callable[[], None]:
    def fault() -> None:
        import sqlite3

        locker = sqlite3.connect(path, timeout=0)
        try:
            locker.execute("BEGIN IMMEDIATE")  # another process writes for longer than the
            time.sleep(SQLITE_BUSY_S + 0.5)  # run's busy timeout: its write fails, "database
            # is locked"
            locker.rollback()
        finally:
            locker.close()
    return fault


def test_sqlite_locked_mid_turn_leaves_a_session_that_resumes_to_the_same_end(
        reference, tmp_path, monkeypatch):
    """SQLite's "database is locked" at a random moment of a run: the run stops with one
    line, the session resumes to the undisturbed end, nothing ran twice, nothing shown was
    lost."""
    expected, active = reference
    monkeypatch.setenv("AUTOBYTEUS_LIKE_SQLITE_BUSY_TIMEOUT_S", str(SQLITE_BUSY_S))
    seed = int(os.environ.get("FAULT_SEED") or random.randrange(1 << 30))
    fraction = random.Random(seed).uniform(0.0, 0.5)
    # the moment is a fraction of the reference run's time (on PostgreSQL, measured once):
    # a run that went faster than that (a quieter machine) ended before it, so it is tried
    # again, earlier, in a fresh folder; every try must reach the undisturbed end
    for attempt in range(4):
        folder = _folder(tmp_path / f"run{attempt}")
        store = str(folder / "s.db")
        state, effects, output, landed, _, code = _to_the_end(folder, store, _lock_sqlite(
            folder / "s.db"), fraction * active)
        where = f"(seed {seed}, fault at {fraction:.3f} of {active:.2f} s, try {attempt + 1})"
        assert_same_end(state, expected, effects, output, where)
        if landed:
            break
        fraction /= 4
    assert landed, f"the run ended before the lock {where}"
    if code != 0:
        assert "database is locked" in output, where

"""A real local Ray cluster for the runtime tests, started once for the whole package (its
start costs seconds), in a temporary directory removed afterwards. Tests skip, saying why,
where Ray is not installed."""

from __future__ import annotations

import os
import shutil
import tempfile
import threading

import pytest


@pytest.fixture(scope="package")
def ray_cluster():
    """``ray.init(num_cpus=2)`` with the dashboard (the state API needs it)."""
    ray = pytest.importorskip("ray", reason="Ray is not installed: pip install "
                                            "'autobyteus-like[ray]'")
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")  # no token file in the home directory
    temp = tempfile.mkdtemp(prefix="ray")  # short: Ray's socket paths have a length limit
    # Ray's processes (the dashboard's) leave multiprocessing directories in TMPDIR when they
    # are ended: theirs is this directory, removed below.
    saved = os.environ.get("TMPDIR")
    os.environ["TMPDIR"] = temp
    try:
        ray.init(num_cpus=2, include_dashboard=True, _temp_dir=temp, log_to_driver=False,
                 namespace="autobyteus-tests")
    finally:
        if saved is None:
            os.environ.pop("TMPDIR")
        else:
            os.environ["TMPDIR"] = saved
    # the state API (list_actors, list_tasks) asks this cluster, not whichever other Ray
    # instance runs on the machine (with two, it refuses to guess)
    saved_address = os.environ.get("RAY_ADDRESS")
    os.environ["RAY_ADDRESS"] = ray.get_runtime_context().gcs_address
    yield ray
    if saved_address is None:
        os.environ.pop("RAY_ADDRESS", None)
    else:
        os.environ["RAY_ADDRESS"] = saved_address
    ray.shutdown()
    shutil.rmtree(temp, ignore_errors=True)


_RAY_THREADS = ("PythonGCThread", "ray_listen_error_messages")
"""Started by Ray's driver on first use (or at ray.init) and kept for the life of the
connection."""


@pytest.fixture(autouse=True)
def no_thread_left_behind(request):
    """Every test leaves no thread running, save the one Ray's driver starts on first use and
    keeps while connected (the package fixture disconnects)."""
    before = set(threading.enumerate())
    yield
    left = [t.name for t in set(threading.enumerate()) - before
            if t.is_alive() and not t.name.startswith(_RAY_THREADS)]
    assert not left, f"threads left running: {left}"


@pytest.fixture(params=["sqlite", "postgres"])
def store_url(request, tmp_path):
    """Where a Ray team's session is stored, as the local session tests run it: a SQLite file,
    and a database on the real PostgreSQL server the suite starts (skipped, saying why, where
    none is installed)."""
    if request.param == "sqlite":
        return str(tmp_path / "team.sessions.db")
    return request.getfixturevalue("postgres_server").new_database()


def run_sql(url: str, statement: str) -> list[tuple]:
    """One statement on the store's database as another process would run it (no library
    code): SQLite through sqlite3, PostgreSQL through psycopg."""
    if url.startswith("postgresql://"):
        import psycopg

        with psycopg.connect(url, autocommit=True) as connection:
            cursor = connection.execute(statement)
            return cursor.fetchall() if cursor.description else []
    import sqlite3

    with sqlite3.connect(url) as database:
        return database.execute(statement).fetchall()

"""The runtime tests' thread check and store URLs (their real local Ray cluster, ``ray_cluster``,
is the suite's: tests/conftest.py)."""

from __future__ import annotations

import threading

import pytest

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

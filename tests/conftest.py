import threading

import pytest


@pytest.fixture(autouse=True)
def no_thread_left_behind():
    """Every test must leave no thread or actor running."""
    before = set(threading.enumerate())
    yield
    left = [t for t in set(threading.enumerate()) - before if t.is_alive()]
    assert not left, f"threads left running: {[t.name for t in left]}"


@pytest.fixture(scope="session")
def postgres_server():
    """A real PostgreSQL server for the whole test run (skips where none is installed)."""
    from tests.postgres_server import PostgresServer

    server = PostgresServer().start()
    yield server
    server.stop()

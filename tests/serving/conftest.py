"""The thread check of the whole suite that also allows the threads Ray's driver keeps while
connected (the served Ray team's tests use the suite's local Ray cluster)."""

from __future__ import annotations

import threading

import pytest

from tests.runtime.conftest import _RAY_THREADS


@pytest.fixture(autouse=True)
def no_thread_left_behind():
    """Every test leaves no thread running, save Ray's driver's own (see the runtime tests);
    an AnyIO worker thread on its way out is waited for, as the suite's check does."""
    before = set(threading.enumerate())
    yield
    for thread in set(threading.enumerate()) - before:
        if thread.name == "AnyIO worker thread":
            thread.join(timeout=10)
    left = [t.name for t in set(threading.enumerate()) - before
            if t.is_alive() and not t.name.startswith(_RAY_THREADS)]
    assert not left, f"threads left running: {left}"

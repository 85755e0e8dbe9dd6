"""Every store test runs on both databases: SQLite in a temporary folder, and PostgreSQL on a
real server the suite starts (skipped, saying why, where no server binary exists)."""

from __future__ import annotations

import pytest

from autobyteus_like.store import open_store


@pytest.fixture(params=["sqlite", "postgres"])
def store_url(request, tmp_path):
    if request.param == "sqlite":
        return str(tmp_path / "sessions.db")
    return request.getfixturevalue("postgres_server").new_database()


@pytest.fixture
def store(store_url):
    opened = open_store(store_url)
    yield opened
    opened.close()

"""The session store's schema, one for SQLite and PostgreSQL, and its migrations.

Each migration is a list of statements that takes the schema from one version to the next;
``schema_version`` holds the version a database is at. A store refuses a database newer than
it knows (written by a newer release) rather than guess. Columns a query selects on are plain
columns; everything else of a row is one JSON document (ASCII-escaped, so any text a model or
tool produced, lone surrogates included, is stored and read back exactly).
"""

from __future__ import annotations

import json
from typing import Any

from autobyteus_like.errors import StoreError
from autobyteus_like.store._database import Database
from autobyteus_like.store._transactions import Transactions

__all__ = ["MIGRATIONS", "SCHEMA_VERSION", "document", "migrate"]

MIGRATIONS: list[list[str]] = [
    [  # 0 -> 1: the first schema
        """CREATE TABLE sessions (
            name TEXT PRIMARY KEY,
            team TEXT NOT NULL,
            fingerprint TEXT NOT NULL,
            config TEXT NOT NULL,
            created_ms BIGINT NOT NULL,
            updated_ms BIGINT NOT NULL,
            status TEXT NOT NULL,
            owner TEXT,
            lease_until_ms BIGINT
        )""",
        """CREATE TABLE agents (
            session TEXT NOT NULL,
            agent TEXT NOT NULL,
            epoch INTEGER NOT NULL,
            next_seq INTEGER NOT NULL,
            PRIMARY KEY (session, agent)
        )""",
        """CREATE TABLE messages (
            session TEXT NOT NULL,
            agent TEXT NOT NULL,
            seq INTEGER NOT NULL,
            epoch INTEGER NOT NULL,
            data TEXT NOT NULL,
            PRIMARY KEY (session, agent, seq)
        )""",
        """CREATE TABLE turns (
            session TEXT NOT NULL,
            agent TEXT NOT NULL,
            turn_id INTEGER NOT NULL,
            state TEXT NOT NULL,
            data TEXT NOT NULL,
            PRIMARY KEY (session, agent, turn_id)
        )""",
        """CREATE TABLE calls (
            session TEXT NOT NULL,
            agent TEXT NOT NULL,
            invocation_id TEXT NOT NULL,
            turn_id INTEGER NOT NULL,
            position INTEGER NOT NULL,
            state TEXT NOT NULL,
            data TEXT NOT NULL,
            PRIMARY KEY (session, agent, invocation_id)
        )""",
        """CREATE TABLE mail (
            session TEXT NOT NULL,
            mail_id TEXT NOT NULL,
            seq INTEGER NOT NULL,
            recipient TEXT NOT NULL,
            state TEXT NOT NULL,
            data TEXT NOT NULL,
            PRIMARY KEY (session, mail_id)
        )""",
        "CREATE INDEX calls_by_turn ON calls (session, agent, turn_id)",
        "CREATE INDEX mail_by_state ON mail (session, state)",
    ],
    [  # 1 -> 2: lease generations (fencing), commit tokens (retries), a run's usage
        "ALTER TABLE sessions ADD COLUMN generation BIGINT NOT NULL DEFAULT 0",
        """CREATE TABLE commits (
            token TEXT PRIMARY KEY,
            at_ms BIGINT NOT NULL
        )""",
        """CREATE TABLE usage (
            session TEXT NOT NULL,
            run TEXT NOT NULL,
            data TEXT NOT NULL,
            PRIMARY KEY (session, run)
        )""",
    ],
    [  # 2 -> 3: model_formats (per provider, base URL and model: the format tool_format auto
        # learned and the eval-formats verdict; store/_model_formats.py)
        """CREATE TABLE model_formats (
            provider TEXT NOT NULL,
            base_url TEXT NOT NULL,
            model TEXT NOT NULL,
            learned TEXT,
            verdict TEXT,
            data TEXT NOT NULL,
            PRIMARY KEY (provider, base_url, model)
        )""",
    ],
    [  # 3 -> 4: sessions.holder (the member holding the conversation after a handoff;
        # NULL: the coordinator; issue 37)
        "ALTER TABLE sessions ADD COLUMN holder TEXT",
    ],
    [  # 4 -> 5: recordings (issue 38): recorded_requests and recorded_responses (each
        # member's LLM round trips), recording_blobs (their parts, content-addressed),
        # recorded_tools (the tools' definitions), session_origins (a fork's origin);
        # store/_recordings.py, store/_fork.py
        """CREATE TABLE recording_blobs (
            digest TEXT PRIMARY KEY,
            data TEXT NOT NULL
        )""",
        """CREATE TABLE recorded_requests (
            session TEXT NOT NULL,
            agent TEXT NOT NULL,
            seq INTEGER NOT NULL,
            turn_id INTEGER NOT NULL,
            data TEXT NOT NULL,
            PRIMARY KEY (session, agent, seq)
        )""",
        """CREATE TABLE recorded_responses (
            session TEXT NOT NULL,
            agent TEXT NOT NULL,
            seq INTEGER NOT NULL,
            turn_id INTEGER NOT NULL,
            data TEXT NOT NULL,
            PRIMARY KEY (session, agent, seq)
        )""",
        """CREATE TABLE recorded_tools (
            session TEXT NOT NULL,
            agent TEXT NOT NULL,
            name TEXT NOT NULL,
            data TEXT NOT NULL,
            PRIMARY KEY (session, agent, name)
        )""",
        """CREATE TABLE session_origins (
            session TEXT PRIMARY KEY,
            origin TEXT NOT NULL,
            data TEXT NOT NULL
        )""",
    ],
]

SCHEMA_VERSION = len(MIGRATIONS)
"""The version this release writes."""


def migrate(transactions: Transactions) -> None:
    """Bring the database up to ``SCHEMA_VERSION`` (``StoreError`` if it is newer)."""
    database = transactions.database
    try:  # up to date: nothing to write, so no write lock (a reader of a store another
        # process is writing does not wait for it)
        rows = transactions.rows("SELECT version FROM schema_version")
    except StoreError:
        rows = []  # a new store: no such table yet
        database.rollback()
    if rows and int(rows[0][0]) == SCHEMA_VERSION:
        return

    def upgrade(database: Database) -> None:
        database.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
        rows = database.execute("SELECT version FROM schema_version")
        version = int(rows[0][0]) if rows else 0
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"the session store {database.url} has schema version {version}, "
                f"newer than this release knows ({SCHEMA_VERSION}); upgrade autobyteus-like")
        for statements in MIGRATIONS[version:]:
            for statement in statements:
                database.execute(statement)
        if not rows:
            database.execute("INSERT INTO schema_version (version) VALUES (?)",
                             (SCHEMA_VERSION,))
        elif version < SCHEMA_VERSION:
            database.execute("UPDATE schema_version SET version = ?", (SCHEMA_VERSION,))

    transactions.write(None, upgrade)


def document(value: Any) -> str:
    """A row's JSON document, ASCII-escaped: any text (lone surrogates included) round-trips
    exactly."""
    return json.dumps(value, ensure_ascii=True, separators=(",", ":"))

"""The session store's schema, one for SQLite and PostgreSQL, and its migrations.

Each migration is a list of statements that takes the schema from one version to the next;
``schema_version`` holds the version a database is at. A store refuses a database newer than
it knows (written by a newer release) rather than guess. Columns a query selects on are plain
columns; everything else of a row is one JSON document (ASCII-escaped, so any text a model or
tool produced, lone surrogates included, is stored and read back exactly).
"""

from __future__ import annotations

__all__ = ["MIGRATIONS", "SCHEMA_VERSION"]

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
]

SCHEMA_VERSION = len(MIGRATIONS)
"""The version this release writes."""

"""Recordings: each member's LLM round trips as they happened, the requests the framework sent
and the responses as the model wrote them (text, native calls with their ids, usage), and the
definitions of the tools it called: what a test made of the session needs beyond its history.

A request is stored as the digests of its parts (system prompt, tools manifest, each message),
each part once per distinct content (``recording_blobs``), and a request that carries the
previous one's messages names that request (``after``) and only its new messages: a long
session does not store its history again at every request, not even as digests.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

from autobyteus_like.store._database import Database
from autobyteus_like.store._schema import document
from autobyteus_like.store._transactions import Transactions

__all__ = ["Recordings", "digest_of"]


def digest_of(text: str) -> str:
    """The content address of a part (its document's SHA-256, hex)."""
    return hashlib.sha256(text.encode()).hexdigest()


class Recordings:
    """The recording tables."""

    def __init__(self, transactions: Transactions) -> None:
        self._tx = transactions

    def next_seq(self, session: str, agent: str) -> int:
        """The sequence number of ``agent``'s next request in ``session``."""
        rows = self._tx.rows("SELECT MAX(seq) FROM recorded_requests WHERE session = ? "
                             "AND agent = ?", session, agent)
        return 0 if not rows or rows[0][0] is None else int(rows[0][0]) + 1

    def record_request(self, session: str, agent: str, seq: int, turn_id: int,
                       request: Mapping[str, Any], blobs: Mapping[str, str]) -> None:
        """Store a request (``request`` names its parts by digest) with the parts not stored
        yet (``blobs``: digest -> document); a request shaped again (a too-long one, cut
        harder and sent once more) replaces the first."""

        def write(database: Database) -> None:
            for digest, text in blobs.items():
                database.execute("INSERT INTO recording_blobs (digest, data) VALUES (?, ?) "
                                 "ON CONFLICT (digest) DO NOTHING", (digest, text))
            database.execute(
                "INSERT INTO recorded_requests (session, agent, seq, turn_id, data) "
                "VALUES (?, ?, ?, ?, ?) ON CONFLICT (session, agent, seq) DO UPDATE SET data = "
                "excluded.data", (session, agent, seq, turn_id, document(request)))

        self._tx.write(session, write)

    def record_response(self, session: str, agent: str, seq: int, turn_id: int,
                        response: Mapping[str, Any]) -> None:
        """Store the response to request ``seq`` as the model wrote it."""
        self._tx.write(session, lambda database: database.execute(
            "INSERT INTO recorded_responses (session, agent, seq, turn_id, data) "
            "VALUES (?, ?, ?, ?, ?) ON CONFLICT (session, agent, seq) DO UPDATE "
            "SET data = excluded.data", (session, agent, seq, turn_id, document(response))))

    def record_tool(self, session: str, agent: str, name: str, data: Mapping[str, Any]
                    ) -> None:
        """Store the definition of a tool ``agent`` called (once per name)."""
        self._tx.write(session, lambda database: database.execute(
            "INSERT INTO recorded_tools (session, agent, name, data) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (session, agent, name) DO NOTHING",
            (session, agent, name, document(data))))

    def requests(self, session: str, agent: str) -> list[dict[str, Any]]:
        """``agent``'s requests in order, each whole again: ``{seq, turn_id, system_prompt,
        tools, messages, ...}``."""
        rows = self._tx.rows("SELECT seq, turn_id, data FROM recorded_requests WHERE "
                             "session = ? AND agent = ? ORDER BY seq", session, agent)
        loaded = [(int(seq), int(turn_id), json.loads(data)) for seq, turn_id, data in rows]
        wanted = {digest for _, _, request in loaded for digest in _digests(request)}
        parts = self._blobs(sorted(wanted))
        out = []
        messages_of: dict[int, list[str]] = {}
        for seq, turn_id, request in loaded:
            messages = messages_of.get(request.get("after", -1), []) + request["messages"] \
                if "after" in request else request["messages"]
            messages_of[seq] = messages
            out.append({"seq": seq, "turn_id": turn_id,
                        "system_prompt": parts.get(request["system_prompt"]),
                        "tools": parts.get(request["tools"]),
                        "messages": [parts.get(digest) for digest in messages],
                        **{key: value for key, value in request.items()
                           if key not in ("system_prompt", "tools", "messages", "after")}})
        return out

    def responses(self, session: str, agent: str) -> list[dict[str, Any]]:
        """``agent``'s responses in order: ``{seq, turn_id, text, tool_calls, usage, ...}``."""
        rows = self._tx.rows("SELECT seq, turn_id, data FROM recorded_responses WHERE "
                             "session = ? AND agent = ? ORDER BY seq", session, agent)
        return [{"seq": int(seq), "turn_id": int(turn_id), **json.loads(data)}
                for seq, turn_id, data in rows]

    def tools(self, session: str, agent: str) -> dict[str, dict[str, Any]]:
        """The definitions of the tools ``agent`` called, by name."""
        rows = self._tx.rows("SELECT name, data FROM recorded_tools WHERE session = ? AND "
                             "agent = ? ORDER BY name", session, agent)
        return {str(name): json.loads(data) for name, data in rows}

    def agents(self, session: str) -> list[str]:
        """The members that made recorded requests."""
        return [str(row[0]) for row in self._tx.rows(
            "SELECT DISTINCT agent FROM recorded_requests WHERE session = ? ORDER BY agent",
            session)]

    def _blobs(self, digests: Sequence[str]) -> dict[str, Any]:
        found: dict[str, Any] = {}
        for start in range(0, len(digests), 500):
            chunk = digests[start:start + 500]
            marks = ", ".join("?" for _ in chunk)
            for digest, data in self._tx.rows(
                    f"SELECT digest, data FROM recording_blobs WHERE digest IN ({marks})",
                    *chunk):
                found[str(digest)] = json.loads(data)
        return found


def _digests(request: Mapping[str, Any]) -> list[str]:
    return [request["system_prompt"], request["tools"], *request["messages"]]

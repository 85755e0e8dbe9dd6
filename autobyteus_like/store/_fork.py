"""Fork a session at a turn: a new session holding its conversation, calls, mail and recordings
up to that turn, the original untouched (``Session.fork``, ``sessions fork``).

TURN counts the team's user messages from 1: the fork keeps everything the first TURN user
messages caused, in every member (with ``member``: ``member``'s own first TURN turns, and
whatever the messages before its next turn caused). Each member's history is cut where its
first turn left out began, as its recorded request for that turn shows. A session still running
is forked at its last committed point; its lease is neither taken nor waited for. A copied call
keeps the idempotency key it had (``session_origins`` names, per call, the session its key
derives from), so a call re-run in the fork is the same call to a tool that takes keys.
"""

from __future__ import annotations

import json
from typing import Any

from autobyteus_like.errors import StoreError, UsageError
from autobyteus_like.store._database import Database
from autobyteus_like.store._recordings import digest_of
from autobyteus_like.store._records import MailRecord
from autobyteus_like.store._schema import document
from autobyteus_like.store._store import SessionStore
from autobyteus_like.store._transactions import now_ms

__all__ = ["copied_seqs", "fork_session", "key_sessions"]

_CUT_TABLES = ("turns", "calls", "recorded_requests", "recorded_responses")


def key_sessions(store: SessionStore, session: str) -> dict[str, dict[str, str]]:
    """Per member, the session each copied call's idempotency key derives from (a fork's
    calls copied from its origin; empty for a session that is no fork)."""
    rows = store.transactions.rows("SELECT data FROM session_origins WHERE session = ?",
                                   session)
    return dict(json.loads(rows[0][0])["keys"]) if rows else {}


def copied_seqs(store: SessionStore, session: str) -> dict[str, int]:
    """Per member, the first history sequence number a fork wrote itself (the messages below
    it were copied from its origin); empty for a session that is no fork."""
    rows = store.transactions.rows("SELECT data FROM session_origins WHERE session = ?",
                                   session)
    return dict(json.loads(rows[0][0]).get("copied", {})) if rows else {}


def fork_session(store: SessionStore, source: str, at: int, new: str,
                 member: str | None = None) -> None:
    """Make session ``new`` from ``source`` up to turn ``at`` (``UsageError`` naming what is
    wrong: no such session or turn, ``new`` taken)."""
    info = store.session(source)
    if info is None:
        raise UsageError(f"no session named {source!r} to fork")
    if store.session(new) is not None:
        raise UsageError(f"a session named {new!r} exists already; fork --as another name")
    if at < 1:
        raise UsageError(f"fork --at {at}: turns count from 1")
    mail = store.mail(source)
    boundary = _boundary(store, source, at, member, mail)
    seq_of = {item.mail_id: item.seq for item in mail}
    origins = key_sessions(store, source)
    cuts: dict[str, int] = {}
    history: dict[str, tuple[int, int]] = {}
    keys: dict[str, dict[str, str]] = {}
    for agent in sorted(set(store.agents(source)) | {item.recipient for item in mail}):
        turns = store.turns(source, agent)
        cut = next((turn.turn_id for turn in turns if turn.mail_id is not None
                    and seq_of.get(turn.mail_id, 0) >= boundary), None)
        cut = cut if cut is not None else max((t.turn_id for t in turns), default=0) + 1
        cuts[agent] = cut
        history[agent] = _history_cut(store, source, agent, cut)
        keys[agent] = {call.invocation_id: origins.get(agent, {}).get(
            call.invocation_id, source) for call in store.calls(source, agent)
            if call.turn_id < cut}

    def copy(database: Database) -> None:
        now = now_ms()
        database.execute(
            "INSERT INTO sessions (name, team, fingerprint, config, created_ms, updated_ms, "
            "status, owner, lease_until_ms, generation, holder) SELECT ?, team, fingerprint, "
            "config, ?, ?, 'stopped', NULL, NULL, 0, holder FROM sessions WHERE name = ?",
            (new, now, now, source))
        for agent, cut in cuts.items():
            epoch, next_seq = history[agent]
            database.execute("INSERT INTO agents (session, agent, epoch, next_seq) "
                             "VALUES (?, ?, ?, ?)", (new, agent, epoch, next_seq))
            database.execute(
                "INSERT INTO messages (session, agent, seq, epoch, data) SELECT ?, agent, seq, "
                "epoch, data FROM messages WHERE session = ? AND agent = ? AND seq < ?",
                (new, source, agent, next_seq))
            for table in _CUT_TABLES:
                columns = _COLUMNS[table]
                database.execute(
                    f"INSERT INTO {table} (session, {columns}) SELECT ?, {columns} FROM "
                    f"{table} WHERE session = ? AND agent = ? AND turn_id < ?",
                    (new, source, agent, cut))
            database.execute(
                "INSERT INTO recorded_tools (session, agent, name, data) SELECT ?, agent, "
                "name, data FROM recorded_tools WHERE session = ? AND agent = ?",
                (new, source, agent))
        database.execute(
            "INSERT INTO mail (session, mail_id, seq, recipient, state, data) SELECT ?, "
            "mail_id, seq, recipient, state, data FROM mail WHERE session = ? AND seq < ?",
            (new, source, boundary))
        copied = {agent: cut[1] for agent, cut in history.items()}  # replies not its own
        database.execute("INSERT INTO session_origins (session, origin, data) VALUES (?, ?, ?)",
                         (new, source, document({"at": at, "member": member, "keys": keys,
                                                 "copied": copied})))

    store.transactions.write(None, copy)


_COLUMNS = {
    "turns": "agent, turn_id, state, data",
    "calls": "agent, invocation_id, turn_id, position, state, data",
    "recorded_requests": "agent, seq, turn_id, data",
    "recorded_responses": "agent, seq, turn_id, data",
}


def _boundary(store: SessionStore, source: str, at: int, member: str | None,
              mail: list[MailRecord]) -> int:
    """The mail sequence number from which nothing is kept."""
    if member is None:
        users = [item for item in mail if item.sender is None]
        if at > len(users):
            raise UsageError(f"session {source!r} has {len(users)} user messages; "
                             f"fork --at {at} names none")
        return users[at].seq if at < len(users) else max((m.seq for m in mail), default=0) + 1
    turns = [turn for turn in store.turns(source, member) if not turn.reset]
    if not turns:
        raise UsageError(f"member {member!r} has no turn in session {source!r}")
    if at > len(turns):
        raise UsageError(f"member {member!r} has {len(turns)} turns in session {source!r}; "
                         f"fork --at {at} names none")
    seq_of: dict[str, int] = {item.mail_id: item.seq for item in mail}
    for turn in turns[at:]:
        if turn.mail_id is not None and turn.mail_id in seq_of:
            return seq_of[turn.mail_id]
    return max((m.seq for m in mail), default=0) + 1


def _history_cut(store: SessionStore, source: str, agent: str, cut: int) -> tuple[int, int]:
    """``agent``'s epoch and first message left out when turns from ``cut`` on are: the
    messages before the first left-out turn's user message, found by its recorded request."""
    messages = store.history(source, agent, every_epoch=True)
    if not messages:
        return 0, 0
    later = [request for request in store.recordings.requests(source, agent)
             if request["turn_id"] >= cut]
    if not later:
        turns = store.turns(source, agent)
        if all(turn.turn_id < cut for turn in turns):  # nothing left out
            return messages[-1].epoch, messages[-1].seq + 1
        raise StoreError(f"session {source!r}: no recorded request of {agent!r}'s turn {cut} "
                         "(recorded before recordings existed?): its history cannot be cut")
    shown = later[0]["messages"]
    # the history the request was shaped from (recorded since requests are recorded as the
    # model saw them, after the history processors); before, the request's own messages
    history = later[0].get("history") or {
        "length": len(shown), "last": digest_of(document(shown[-1])) if shown else None}
    length, wanted = history["length"], history["last"]
    for epoch in sorted({message.epoch for message in messages}):
        of_epoch = [message for message in messages if message.epoch == epoch]
        if len(of_epoch) >= length and wanted is not None and digest_of(document(
                _data(of_epoch[length - 1]))) == wanted:
            return epoch, of_epoch[length - 1].seq
    raise StoreError(f"session {source!r}: {agent!r}'s history does not hold the message its "
                     f"turn {cut} began with: it cannot be cut there")


def _data(message: Any) -> dict[str, Any]:
    """A stored message as the session writer wrote it (``message_data``)."""
    data: dict[str, Any] = {"role": message.role, "content": message.content}
    for key in ("tool_calls", "tool_results", "carried", "images"):
        if getattr(message, key):
            data[key] = getattr(message, key)
    if message.request_no is not None:
        data["request_no"] = message.request_no
    return data

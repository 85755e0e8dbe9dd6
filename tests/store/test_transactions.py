"""The rules every write of a store obeys (transactions.py), on SQLite and a real PostgreSQL:
writes of a held session are fenced by its lease generation; after a failed write nothing more
of the session is written; a dropped connection is reconnected and a COMMIT whose answer was
lost is never applied twice; a schema 1 store is migrated; a run's usage is kept."""

from __future__ import annotations

import sqlite3
import time

import pytest

from autobyteus_like.errors import SessionInUseError, SessionLostError, StoreError
from autobyteus_like.store import MailRecord, MailState, SessionStore, TurnRecord, open_store
from autobyteus_like.store._database import PostgresDatabase
from autobyteus_like.store._schema import MIGRATIONS


def _hold(store: SessionStore, owner: str) -> None:
    store.hold("s", team="t", fingerprint="f", config={}, owner=owner)


def _turn(turn_id: int) -> TurnRecord:
    return TurnRecord(agent="a", turn_id=turn_id, text=f"turn {turn_id}", sender=None,
                      mail_id=None, state="open")


def _expire(store: SessionStore) -> None:
    """End every lease of the store's database (as time running out would)."""
    store.transactions.write(None, lambda database: database.execute(
        "UPDATE sessions SET lease_until_ms = 0"))


def test_a_holder_whose_session_was_taken_over_writes_nothing(store_url):
    first, second = open_store(store_url), open_store(store_url)
    try:
        _hold(first, "first")
        first.open_turn("s", _turn(1))
        _expire(first)
        _hold(second, "second")
        assert second.session("s").generation == 2  # type: ignore[union-attr]
        with pytest.raises(SessionLostError, match="lease generation 2, this process held 1"):
            first.open_turn("s", _turn(2))
        with pytest.raises(SessionLostError):  # refused at once from now on, renewal too
            first.renew("s", "first")
        with pytest.raises(SessionLostError), first.transaction():
            first.append_messages("s", "a", [{"role": "user", "content": "late"}])
        first.release("s", "first", "failed")  # gives up nothing: it is not its session
        info = second.session("s")
        assert info is not None and info.owner == "second" and info.status == "active"
        assert [t.turn_id for t in second.turns("s")] == [1]
        assert second.history("s", "a") == []
        second.open_turn("s", _turn(2))  # the new holder writes on
        assert [t.turn_id for t in second.turns("s")] == [1, 2]
    finally:
        first.close()
        second.close()


def test_a_removed_session_is_lost_to_its_holder(store_url):
    holder, other = open_store(store_url), open_store(store_url)
    try:
        _hold(holder, "me")
        assert other.delete("s")
        with pytest.raises(SessionLostError, match="it was removed"):
            holder.set_status("s", "done")
    finally:
        holder.close()
        other.close()


def test_a_live_holder_keeps_its_session_and_its_generation(store_url):
    store, other = open_store(store_url), open_store(store_url)
    try:
        _hold(store, "me")
        store.renew("s", "me")
        with pytest.raises(SessionInUseError):
            _hold(other, "other")
        store.open_turn("s", _turn(1))
        assert store.session("s").generation == 1  # type: ignore[union-attr]
        store.release("s", "me", "done")
        _hold(other, "other")  # given up: the next holder takes it, one generation on
        assert other.session("s").generation == 2  # type: ignore[union-attr]
    finally:
        store.close()
        other.close()


def test_after_a_failed_write_nothing_more_of_the_session_is_written(tmp_path):
    path = tmp_path / "s.db"
    store = open_store(path)
    locker = sqlite3.connect(path, timeout=0)
    try:
        _hold(store, "me")
        store.open_turn("s", _turn(1))
        store.database._connection.execute("PRAGMA busy_timeout = 50")  # type: ignore[attr-defined]
        locker.execute("BEGIN IMMEDIATE")  # another process writes for long: ours times out
        with pytest.raises(StoreError, match="database is locked"):
            store.close_turn("s", "a", 1, answer="", error="boom")
        locker.rollback()
        with pytest.raises(StoreError, match=r"an earlier write failed .*database is locked"):
            store.close_turn("s", "a", 1, answer="", error="the turn failed")
        assert [t.state for t in store.turns("s")] == ["open"]  # left for a resume
        assert store.standing("s") == "unfinished"
        store.release("s", "me", store.standing("s"))  # giving the lease up still works
        info = store.session("s")
        assert info is not None and info.owner is None and info.status == "unfinished"
    finally:
        locker.close()
        store.close()


def test_the_store_reconnects_after_its_backend_is_terminated(postgres_server):
    url = postgres_server.new_database()
    store, admin = open_store(url), open_store(url)
    try:
        _hold(store, "me")
        admin.database.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()")
        store.open_turn("s", _turn(1))  # on a new connection, still fenced
        assert [t.turn_id for t in store.turns("s")] == [1]
        admin.database.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()")
        assert store.session("s") is not None  # a read too
    finally:
        store.close()
        admin.close()


class _AnswerLost(PostgresDatabase):
    """A connection whose server applies a COMMIT and is gone before the answer arrives: the
    backend ends itself right after committing (once)."""

    armed = False

    def commit(self) -> None:
        super().commit()
        if self.armed:
            self.armed = False
            self.execute("SELECT pg_terminate_backend(pg_backend_pid())")


def test_a_commit_whose_answer_was_lost_is_not_applied_twice(postgres_server):
    database = _AnswerLost(postgres_server.new_database())
    store = SessionStore(database)
    try:
        _hold(store, "me")
        database.armed = True
        store.append_messages("s", "a", [{"role": "user", "content": "once"}])
        assert not database.armed  # the answer was lost, and the store went on
        assert [m.content for m in store.history("s", "a")] == ["once"]
        store.append_messages("s", "a", [{"role": "assistant", "content": "then"}])
        assert [m.content for m in store.history("s", "a")] == ["once", "then"]
    finally:
        store.close()


def test_a_schema_1_store_is_migrated_and_its_sessions_go_on(tmp_path):
    path = tmp_path / "old.db"
    old = sqlite3.connect(path)
    for statement in MIGRATIONS[0]:
        old.execute(statement)
    old.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
    old.execute("INSERT INTO schema_version VALUES (1)")
    old.execute("INSERT INTO sessions VALUES ('s', 't', 'f', '{}', 1, 1, 'done', NULL, NULL)")
    old.commit()
    old.close()
    store = open_store(path)
    try:
        assert store.session("s").generation == 0  # type: ignore[union-attr]
        _hold(store, "me")
        assert store.session("s").generation == 1  # type: ignore[union-attr]
        assert store.usage("s") is None
    finally:
        store.close()


def test_a_runs_usage_is_kept_with_the_session(store_url):
    store = open_store(store_url)
    try:
        _hold(store, "me")
        store.save_usage("s", {"llm_calls": 2, "tool_calls": 1})
        store.save_usage("s", {"llm_calls": 3, "tool_calls": 1})
        store.save_usage("s", {"llm_calls": 1}, run="other")
    finally:
        store.close()
    again = open_store(store_url)
    try:
        assert again.usage("s") == {"llm_calls": 3, "tool_calls": 1}
        assert again.usage("s", run="other") == {"llm_calls": 1}
        assert again.delete("s") and again.usage("s") is None
    finally:
        again.close()


def test_two_decisions_on_one_call_one_wins(store_url):
    from autobyteus_like.errors import CallAlreadyDecidedError
    from autobyteus_like.store import CallRecord, CallState

    store = open_store(store_url)
    try:
        _hold(store, "me")
        store.record_calls("s", [CallRecord(
            agent="a", invocation_id="c1", turn_id=1, request_no=1, position=0, name="x",
            arguments={}, why=None, state=CallState.WAITING_APPROVAL)])
        with pytest.raises(SessionInUseError):  # its holder is alive: not decided from outside
            store.decide_call("s", "c1", CallState.APPROVED)
        store.release("s", "me", "waiting")
        decided = store.decide_call("s", "c1", CallState.APPROVED)
        assert decided.state is CallState.APPROVED
        with pytest.raises(CallAlreadyDecidedError, match="already decided: approved"):
            store.decide_call("s", "c1", CallState.DENIED, {"status": "failure"})
        assert store.find_call("s", "c1").state is CallState.APPROVED  # type: ignore[union-attr]
    finally:
        store.close()


def test_mail_waiting_for_delivery_is_listed(store_url):
    store = open_store(store_url)
    try:
        for seq, state in enumerate((MailState.QUEUED, MailState.DELIVERED, MailState.QUEUED)):
            store.queue_mail("s", MailRecord(mail_id=f"m{seq}", seq=seq, sender=None,
                                             recipient="r", content="hi", state=state))
        assert [m.mail_id for m in store.undelivered_mail("s")] == ["m0", "m2"]
    finally:
        store.close()


def test_a_lease_length_comes_from_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("AUTOBYTEUS_LIKE_LEASE_S", "0.5")
    store = open_store(tmp_path / "a.db")
    try:
        before = time.time() * 1000
        _hold(store, "me")
        until = store.session("s").lease_until_ms  # type: ignore[union-attr]
        assert until is not None and before + 400 <= until <= time.time() * 1000 + 600
    finally:
        store.close()
    monkeypatch.setenv("AUTOBYTEUS_LIKE_LEASE_S", "soon")
    with pytest.raises(StoreError, match=r"\$AUTOBYTEUS_LIKE_LEASE_S: expected a number"):
        open_store(tmp_path / "b.db")


def test_a_decision_after_the_holders_lease_ran_out_fences_that_holder(store_url):
    """A holder paused past its lease (its person still at the prompt) and a decision from
    another terminal: the decision takes the session from it, so the holder, let go, cannot
    decide the call again or write anything of the session."""
    from autobyteus_like.store import CallRecord, CallState

    holder, other = open_store(store_url), open_store(store_url)
    try:
        _hold(holder, "paused")
        holder.record_calls("s", [CallRecord(
            agent="a", invocation_id="c1", turn_id=1, request_no=1, position=0, name="x",
            arguments={}, why=None, state=CallState.WAITING_APPROVAL)])
        _expire(holder)  # the pause outlasts the lease
        other.decide_call("s", "c1", CallState.DENIED, {"status": "failure"})
        with pytest.raises(SessionLostError):  # its own approval, too late: refused
            holder.set_call("s", "a", "c1", CallState.APPROVED)
        with pytest.raises(SessionLostError):
            holder.renew("s", "paused")
        assert isinstance(holder.release("s", "paused", "active"), SessionLostError)
        info = other.session("s")
        assert info is not None and info.owner is None and info.generation == 2
        assert other.find_call("s", "c1").state is CallState.DENIED  # type: ignore[union-attr]
    finally:
        holder.close()
        other.close()


def test_a_holder_paused_inside_a_transaction_does_not_block_a_take_over(postgres_server):
    """A holder stopped between its BEGIN and COMMIT (SIGSTOP, a debugger) holds the session's
    row locked. The server ends its connection once it has sat idle in the transaction for
    the lease, so another process takes the session over; the holder, let go, is fenced."""
    import threading

    url = postgres_server.new_database()
    paused, taker = open_store(url, lease_s=1.0), open_store(url, lease_s=1.0)
    taken = threading.Event()

    def take() -> None:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                _hold(taker, "taker")
            except SessionInUseError:  # the paused holder's lease has not run out yet
                time.sleep(0.1)
                continue
            taken.set()
            return

    thread = threading.Thread(target=take)
    try:
        _hold(paused, "paused")
        with pytest.raises(SessionLostError), paused.transaction():
            paused.set_status("s", "active")  # the session's row is locked from here
            thread.start()
            assert taken.wait(20), "the take-over waited on the paused holder's locks"
        info = taker.session("s")
        assert info is not None and info.owner == "taker" and info.generation == 2
        assert info.status == "active"
    finally:
        thread.join()
        paused.close()
        taker.close()

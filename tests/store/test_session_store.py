"""The session store on both databases, the same tests: history, turns, calls, mail, leases,
schema versions, and text no encoding can hold."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from autobyteus_like import SessionInUseError, StoreError
from autobyteus_like.store import (
    CallRecord,
    CallState,
    MailRecord,
    MailState,
    SessionStore,
    TurnRecord,
    open_store,
)


def hold(store: SessionStore, name: str = "s1", owner: str = "me") -> None:
    store.hold(name, team="team", fingerprint="f1", config={"members": ["lead"]}, owner=owner)


def test_history_turns_calls_and_mail_round_trip(store):
    hold(store)
    strange = "caf\udce9 \U0001f600 \x00 end"
    store.append_messages("s1", "lead", [{"role": "user", "content": strange},
                                         {"role": "assistant", "content": "ok",
                                          "tool_calls": [{"id": "c1", "name": "t"}]}])
    assert [(m.seq, m.role, m.content) for m in store.history("s1", "lead")] == [
        (0, "user", strange), (1, "assistant", "ok")]
    store.open_turn("s1", TurnRecord(agent="lead", turn_id=1, text=strange, sender=None,
                                     mail_id="m1", state="open"))
    store.record_calls("s1", [CallRecord(agent="lead", invocation_id="c1", turn_id=1,
                                         request_no=1, position=0, name="t",
                                         arguments={"a": strange}, why=None,
                                         state=CallState.PARSED)])
    store.set_call("s1", "lead", "c1", CallState.RUNNING)
    store.set_call("s1", "lead", "c1", CallState.SUCCEEDED, {"status": "success", "content": 5})
    [call] = store.calls("s1", "lead", 1)
    assert (call.state, call.arguments, call.result) == (
        CallState.SUCCEEDED, {"a": strange}, {"status": "success", "content": 5})
    store.close_turn("s1", "lead", 1, answer="done", error=None)
    [turn] = store.turns("s1", "lead")
    assert (turn.state, turn.answer, turn.text, turn.mail_id) == ("done", "done", strange, "m1")
    store.queue_mail("s1", MailRecord(mail_id="m1", seq=0, sender=None, recipient="lead",
                                      content="go", state=MailState.QUEUED))
    store.set_mail("s1", "m1", MailState.ANSWERED, answer="done")
    assert [(m.mail_id, m.state, m.answer) for m in store.mail("s1")] == [
        ("m1", MailState.ANSWERED, "done")]
    assert store.integrity_problems() == []


def test_a_reset_starts_a_new_conversation_and_keeps_the_old_one(store):
    hold(store)
    store.append_messages("s1", "a", [{"role": "user", "content": "one"}])
    store.reset_history("s1", "a")
    store.append_messages("s1", "a", [{"role": "user", "content": "two"}])
    assert [m.content for m in store.history("s1", "a")] == ["two"]
    assert [m.content for m in store.history("s1", "a", every_epoch=True)] == ["one", "two"]


def test_a_transaction_is_all_or_nothing(store):
    hold(store)
    with pytest.raises(RuntimeError), store.transaction():
        store.append_messages("s1", "a", [{"role": "user", "content": "lost"}])
        raise RuntimeError("crash inside")
    assert store.history("s1", "a") == []


def test_a_held_session_is_refused_to_another_owner_until_released(store):
    hold(store, owner="host:1:1")
    with pytest.raises(SessionInUseError, match="in use by host:1:1"):
        hold(store, owner="host:2:2")
    store.release("s1", "host:1:1", status="done")
    hold(store, owner="host:2:2")
    assert store.session("s1").owner == "host:2:2"
    assert store.session("s1").status == "done"


def test_a_lease_of_a_dead_process_on_this_host_is_taken_over(store):
    import socket

    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip()
    hold(store, owner=f"{socket.gethostname()}:{dead}:0")
    hold(store, owner="me")  # the holder is gone: no wait for its lease to expire
    assert store.session("s1").owner == "me"


def test_sessions_are_listed_and_deleted(store):
    hold(store, "a")
    hold(store, "b")
    assert {s.name for s in store.sessions()} == {"a", "b"}
    assert store.delete("a") and not store.delete("a")
    assert [s.name for s in store.sessions()] == ["b"]


def test_a_newer_schema_is_refused(store_url):
    store = open_store(store_url)
    with store.transaction():
        store.database.execute("UPDATE schema_version SET version = 99")
    store.close()
    with pytest.raises(StoreError, match="schema version 99, newer than this release knows"):
        open_store(store_url)


def test_two_processes_holding_the_same_session_one_wins(store_url, tmp_path):
    script = textwrap.dedent("""
        import sys
        from autobyteus_like import SessionInUseError
        from autobyteus_like.store import open_store, process_owner
        store = open_store(sys.argv[1])
        try:
            store.hold("shared", team="t", fingerprint="f", config={}, owner=process_owner())
            print("held", flush=True)
            sys.stdin.readline()  # keep holding until told
        except SessionInUseError as exc:
            print("refused:", exc, flush=True)
    """)
    first = subprocess.Popen([sys.executable, "-c", script, store_url], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True, env={**os.environ})
    assert first.stdout is not None and first.stdin is not None
    try:
        assert first.stdout.readline().strip() == "held"
        second = subprocess.run([sys.executable, "-c", script, store_url], input="",
                                capture_output=True, text=True, timeout=60)
        assert second.stdout.startswith("refused: session 'shared' is in use by ")
    finally:
        first.stdin.close()
        first.wait(60)

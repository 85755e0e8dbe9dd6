"""Recordings: what recording a session's model round trips costs a turn, as a ratio to the same
run on the same session store unrecorded, and what content addressing saves in storage.

    python benchmarks/recording_benchmark.py            # about half a minute
    python benchmarks/recording_benchmark.py --quick

A turn is one tool round trip (ScriptedLLM -> one call -> result -> final answer: two requests)
of one agent on a SQLite session, its conversation growing over the turns (so a request carries
a longer history each time). The unrecorded reference is the same session with the recorder
left out of the agent's hooks; the two alternate, round by round, so the machine's load falls on
both alike. Storage: the bytes of the recording's parts as stored (each distinct part once)
against the bytes of every request written whole.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

CALL = '{"name": "noop", "arguments": {}}'


def turns(folder: Path, name: str, count: int, recorded: bool) -> tuple[list[float], Any]:
    """Seconds per turn for ``count`` turns in one conversation; the store, still open."""
    import autobyteus_like.agent._agent as agent_module
    from autobyteus_like import Agent, AgentConfig, ScriptedLLM, tool
    from autobyteus_like.hooks._session_writer import SessionWriter
    from autobyteus_like.store import Session, open_store

    @tool
    def noop() -> str:
        """Do nothing."""
        return "ok"

    # the name the agent calls (it imports it): patching _run_hooks would change nothing
    original = agent_module.session_writer  # type: ignore[attr-defined]
    if not recorded:  # the reference: the session writer alone
        def writer_only(session: Any, agent: str, snapshot: Any, shaped: bool = False) -> Any:
            session.claim_writer(agent)
            return SessionWriter(session.store, session.name, agent,
                                 persisted=len(snapshot.messages))

        agent_module.session_writer = writer_only  # type: ignore[attr-defined]
    store = open_store(folder / f"{name}.db")
    session = Session(name, store)
    times: list[float] = []
    try:
        config = AgentConfig(name="bench", llm=ScriptedLLM([CALL, "done"] * (count + 5)),
                             tools=[noop], tool_format="json")
        with Agent(config, tools=[noop], session=session) as agent:
            for _ in range(3):
                agent.run("warm up", timeout=30)
            for _ in range(count):
                start = time.perf_counter()
                agent.run("go", timeout=30)
                times.append(time.perf_counter() - start)
    finally:
        agent_module.session_writer = original  # type: ignore[attr-defined]
        session.close()
    return times, store


def storage(store: Any, name: str) -> tuple[int, int]:
    """Bytes of the recording as stored, and of every request written whole."""
    stored = sum(len(row[0]) for row in store.transactions.rows(
        "SELECT data FROM recording_blobs")) + sum(len(row[0]) for row in store.transactions.rows(
            "SELECT data FROM recorded_requests WHERE session = ?", name))
    import json

    whole = sum(len(json.dumps(request)) for request in store.recordings.requests(name, "bench"))
    return stored, whole


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    count, rounds = (20, 2) if args.quick else (60, 5)
    recorded: list[float] = []
    plain: list[float] = []
    with tempfile.TemporaryDirectory() as folder:
        for number in range(rounds):
            times, store = turns(Path(folder), f"plain{number}", count, recorded=False)
            if store.recordings.requests(f"plain{number}", "bench"):
                raise SystemExit("the reference recorded: the recorder was not left out")
            store.close()
            plain += times
            times, store = turns(Path(folder), f"rec{number}", count, recorded=True)
            recorded += times
            stored, whole = storage(store, f"rec{number}")
            store.close()
    p50_rec, p50_plain = statistics.median(recorded), statistics.median(plain)
    print(f"turns of one round trip, {count} per conversation, {rounds} rounds alternating")
    print(f"unrecorded session: median {p50_plain * 1e3:.2f} ms a turn")
    print(f"recorded session:   median {p50_rec * 1e3:.2f} ms a turn "
          f"({p50_rec / p50_plain:.2f}x the unrecorded)")
    print(f"storage of one conversation's recording: {stored / 1024:.0f} KiB as stored, "
          f"{whole / 1024:.0f} KiB with each request whole ({whole / max(stored, 1):.1f}x)")


if __name__ == "__main__":
    main()

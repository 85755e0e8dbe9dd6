"""Sessions: what the store adds to a tool round trip, and how long a resume takes.

    python benchmarks/session_benchmark.py            # about a minute
    python benchmarks/session_benchmark.py --quick

1. A turn with one tool round trip (ScriptedLLM -> one tool call -> result -> final answer) with
   no store, then on a SQLite session (WAL; durable across a process crash), on SQLite syncing
   every commit (``durability="power"``) and on PostgreSQL (a server started for the run when
   its binaries are installed), in alternating rounds; the figure is the time added per turn.
2. Resuming a session whose agent has 10,000 messages: from opening the store to an agent
   started with its whole history (checked: its next request carries every message).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

CALL = '{"name": "noop", "arguments": {}}'


def turns(location: Callable[[], str | None], count: int, durability: str = "process"
          ) -> list[float]:
    """Seconds per turn for ``count`` turns of one agent on a fresh session at ``location()``
    (None: no session). A new conversation every 20 turns (untimed), so the history stays
    short and the figure is the store's, not the history's."""
    from autobyteus_like import Agent, AgentConfig, ScriptedLLM, tool
    from autobyteus_like.store import Session

    @tool
    def noop() -> str:
        """Do nothing."""
        return "ok"

    where = location()
    session = Session("bench", where, durability=durability) if where else None  # type: ignore[arg-type]
    llm = ScriptedLLM([CALL, "done"] * (2 * count + 20))
    times: list[float] = []
    config = AgentConfig(name="bench", llm=llm, tools=[noop], tool_format="json")
    with Agent(config, tools=[noop], session=session) as agent:
        for _ in range(5):
            agent.run("warm up", timeout=10)
        for index in range(count):
            if index % 20 == 0:
                agent.reset()
                agent.run("start", timeout=10)
            start = time.perf_counter()
            agent.run("go", timeout=10)
            times.append(time.perf_counter() - start)
    if session is not None:
        session.close()
    return times


def resume_time(location: str, messages: int) -> tuple[float, int]:
    """Seconds from opening the store to an agent started on a stored history of
    ``messages`` messages, and how many messages its next request carried."""
    from autobyteus_like import Agent, AgentConfig, ScriptedLLM
    from autobyteus_like.store import Session, open_store

    store = open_store(location)
    store.hold("big", team="reader", fingerprint="-", config={"members": {"reader": []}},
               owner="builder")
    batch = [{"role": "user", "content": f"question {i} " + "words " * 20} if i % 2 == 0 else
             {"role": "assistant", "content": f"answer {i} " + "words " * 40,
              "request_no": i // 2 + 1}
             for i in range(messages)]
    store.append_messages("big", "reader", batch)
    store.release("big", "builder", "done")
    store.close()
    llm = ScriptedLLM(["next"] * (messages + 2))
    started = time.perf_counter()
    session = Session("big", location)
    agent = Agent(AgentConfig(name="reader", llm=llm), session=session).start()
    elapsed = time.perf_counter() - started
    try:
        agent.run("one more", timeout=30)
        carried = len(llm.requests[0].messages)
    finally:
        agent.stop()
        session.close()
    return elapsed, carried


def _postgres() -> tuple[Callable[[], str] | None, Callable[[], None]]:
    try:
        from tests.postgres_server import PostgresServer, find_binaries
    except ImportError:
        return None, lambda: None
    if find_binaries() is None:
        return None, lambda: None
    server = PostgresServer().start(durable=True)  # fsync on, as a real server runs
    return server.new_database, server.stop


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer turns and rounds")
    quick = parser.parse_args().quick
    count, rounds = (100, 2) if quick else (300, 3)
    folder = Path(tempfile.mkdtemp(prefix="session-bench-"))
    files = iter(range(10**6))

    def sqlite() -> str:
        return str(folder / f"s{next(files)}.db")

    postgres, stop_postgres = _postgres()
    try:
        kinds: dict[str, tuple[Callable[[], str | None], str]] = {
            "no store": (lambda: None, "process"),
            "SQLite (WAL, process-crash durable)": (sqlite, "process"),
            "SQLite, fsync per commit (power-loss durable)": (sqlite, "power"),
        }
        if postgres is not None:
            kinds["PostgreSQL (local server, fsync on)"] = (postgres, "process")
        results: dict[str, list[float]] = {name: [] for name in kinds}
        for _ in range(rounds):
            for name, (location, durability) in kinds.items():
                results[name].append(statistics.median(turns(location, count, durability)))
        base = statistics.median(results["no store"])
        print("## Sessions: time added per tool round trip\n")
        print("| store | per turn (median) | added per turn |\n| --- | --- | --- |")
        for name, values in results.items():
            value = statistics.median(values)
            added = "" if name == "no store" else f"{(value - base) * 1e3:+.2f} ms"
            print(f"| {name} | {value * 1e6:.0f} us | {added} |")
        print("\n(goal: at most 1 ms added per round trip with SQLite in WAL mode)\n")
        print("## Resume a session of 10,000 messages\n")
        print("| store | open + restore + agent started | messages carried |\n| --- | --- | --- |")
        places = [("SQLite", sqlite())] + ([("PostgreSQL", postgres())] if postgres else [])
        for name, place in places:
            elapsed, carried = resume_time(place, 10_000)
            print(f"| {name} | {elapsed * 1e3:.0f} ms | {carried} |")
        print("\n(goal: under 0.5 s)")
    finally:
        stop_postgres()


if __name__ == "__main__":
    main()

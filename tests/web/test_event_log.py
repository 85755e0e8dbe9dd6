"""The event log: numbered frames, a reader resuming after any number gets the rest once, a
run's own stream ends with the run, and closing ends every reader."""

from __future__ import annotations

import anyio
from ag_ui.core import CustomEvent, RunFinishedEvent, RunStartedEvent

from autobyteus_like.web._event_log import EventLog


def custom(n: int) -> CustomEvent:
    return CustomEvent(name="n", value=n)


def ids_and_values(chunks: list[bytes]) -> list[tuple[int, str]]:
    out, event_id = [], 0
    for line in b"".join(chunks).decode().splitlines():
        if line.startswith("id: "):
            event_id = int(line[4:])
        elif line.startswith("data: "):
            out.append((event_id, line[6:]))
    return out


def test_readers_resume_after_any_event_and_end_when_closed():
    async def main() -> None:
        log = EventLog()
        log.append("r1", [custom(n) for n in range(1000)])
        received: list[bytes] = []

        async def read(after: int) -> None:
            async for chunk in log.frames(after=after):
                received.append(chunk)

        async with anyio.create_task_group() as group:
            group.start_soon(read, 990)
            await anyio.sleep(0)
            log.append("r1", [custom(1000), custom(1001)])
            await anyio.sleep(0)
            log.close()
        got = ids_and_values(received)
        assert [event_id for event_id, _ in got] == list(range(991, 1003))
        assert '"value":1001' in got[-1][1]
        everything = [chunk async for chunk in log.frames()]
        assert len(ids_and_values(everything)) == 1002 and len(everything) > 1  # batches

    anyio.run(main)


def test_a_runs_stream_holds_only_its_events_and_ends_with_it():
    async def main() -> None:
        log = EventLog()
        log.append("a", [RunStartedEvent(thread_id="t", run_id="a"), custom(1)])
        start = log.last_id
        log.append("b", [RunStartedEvent(thread_id="t", run_id="b")])
        log.append("a", [custom(2)])
        log.append("b", [custom(3), RunFinishedEvent(thread_id="t", run_id="b")])
        log.append("a", [custom(4)])
        got = ids_and_values([c async for c in log.frames(after=start, run_id="b",
                                                          until_end=True)])
        assert [event_id for event_id, _ in got] == [3, 5, 6]
        assert "RUN_FINISHED" in got[-1][1]

    anyio.run(main)


def test_text_no_utf8_can_hold_is_sent_replaced_not_lost():
    from ag_ui.core import TextMessageContentEvent

    async def main() -> None:
        log = EventLog()
        log.append("r", [TextMessageContentEvent(message_id="m", delta="a\ud800b<i>"),
                         CustomEvent(name="n", value={"k\udfff": ["\ud83d"]})])
        log.close()
        got = ids_and_values([c async for c in log.frames()])
        assert [event_id for event_id, _ in got] == [1, 2]
        assert '"delta":"a\ufffdb<i>"' in got[0][1]
        assert '{"k\ufffd":["\ufffd"]}' in got[1][1]

    anyio.run(main)

"""The bridge between a caller's loop and a toolset's loop thread: results, errors and
cancellation cross it; many calls from several loops at once each get their own answer; a call
that arrives after ``stop`` fails at once; no thread is left."""

from __future__ import annotations

import asyncio
import threading

import pytest

from autobyteus_like.mcp._loop_thread import LoopThread


def test_results_errors_and_cancellation_cross_the_bridge():
    bridge = LoopThread("bridge")
    cancelled = threading.Event()

    async def answer(value: int) -> tuple[int, bool]:
        return value, threading.current_thread() is bridge.thread

    async def fail() -> None:
        raise KeyError("nope")

    async def forever() -> None:
        try:
            await asyncio.sleep(60)
        finally:
            cancelled.set()

    async def caller() -> None:
        assert await bridge.run(lambda: answer(7)) == (7, True)
        with pytest.raises(KeyError, match="nope"):
            await bridge.run(fail)
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(bridge.run(forever), 0.1)

    try:
        asyncio.run(caller())
        assert cancelled.wait(5)  # the task on the bridge's loop was cancelled too
    finally:
        bridge.stop()
    assert not bridge.thread.is_alive()


def test_many_concurrent_calls_from_several_loops_each_get_their_answer():
    bridge = LoopThread("bridge")

    async def double(value: int) -> int:
        await asyncio.sleep(0)
        return 2 * value

    async def caller(offset: int) -> list[int]:
        return list(await asyncio.gather(*(bridge.run(lambda i=i: double(offset + i))
                                           for i in range(500))))

    results: dict[int, list[int]] = {}
    threads = [threading.Thread(target=lambda o=o: results.__setitem__(o, asyncio.run(
        caller(o)))) for o in (0, 10_000, 20_000)]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
    finally:
        bridge.stop()
    for offset in (0, 10_000, 20_000):
        assert results[offset] == [2 * (offset + i) for i in range(500)]


def test_a_call_after_stop_fails_at_once():
    bridge = LoopThread("bridge")
    bridge.stop()

    async def nothing() -> None:
        return None

    async def caller() -> None:
        with pytest.raises(RuntimeError, match="the loop has stopped"):
            await asyncio.wait_for(bridge.run(nothing), 5)

    asyncio.run(caller())
    with pytest.raises(RuntimeError, match="the loop has stopped"):
        bridge.submit(nothing()).result(5)

"""LoopThread: one asyncio event loop on a thread of its own, for a toolset's MCP session.

MCP sessions are async (anyio on asyncio) and bound to the loop that opened them, while an
agent calls its tools from its own tool loop (or from pool threads). Each toolset therefore owns
one loop thread. ``run`` is the bridge for a caller on another loop: a callback there and one
back, and nothing else (about half the cost of ``run_coroutine_threadsafe`` + ``wrap_future``,
which matters when a call to a fast server takes a few hundred microseconds); callbacks that
arrive while a loop has not yet woken for the previous ones join them instead of waking it
again, so concurrent calls cost fewer wake-ups (and fewer fights for the GIL). Cancelling the
caller cancels the task on this loop. ``submit`` serves blocking callers. ``stop`` cancels what
is still running, closes the loop and joins the thread; a call that arrives too late fails at
once with ``RuntimeError``, never hangs.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections import deque
from collections.abc import Callable, Coroutine
from concurrent.futures import Future
from typing import Any, TypeVar

from loguru import logger

__all__ = ["LoopThread"]

T = TypeVar("T")


def _copy_outcome(task: asyncio.Task[Any], outcome: asyncio.Future[Any]) -> None:
    """On the caller's loop: give the caller what the task ended with."""
    if outcome.done():
        return
    if task.cancelled():
        outcome.cancel()
    elif (error := task.exception()) is not None:
        outcome.set_exception(error)
    else:
        outcome.set_result(task.result())


def _fail(outcome: asyncio.Future[Any]) -> None:
    if not outcome.done():
        outcome.set_exception(RuntimeError("the loop has stopped"))


class _Mailbox:
    """Callbacks for one loop from other threads, one wake-up per batch: while the loop has not
    run the batch yet, a later callback joins it. (The flag is cleared before the batch is
    taken, so a callback that sees it set is always taken by the drain it saw; deque appends
    and pops are atomic.)"""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._items: deque[Callable[[], None]] = deque()
        self._armed = False

    def post(self, callback: Callable[[], None]) -> None:
        """From any thread; ``RuntimeError`` if the loop is closed."""
        self._items.append(callback)
        if not self._armed:
            self._armed = True
            self._loop.call_soon_threadsafe(self._drain)

    def _drain(self) -> None:
        self._armed = False
        while self._items:
            callback = self._items.popleft()
            try:
                callback()
            except Exception:  # one callback's failure never strands the others
                logger.exception("a cross-thread callback failed")


class LoopThread:
    """An event loop running on a daemon thread named ``name``, from construction to ``stop``."""

    def __init__(self, name: str) -> None:
        self.loop = asyncio.new_event_loop()
        self._lock = threading.Lock()
        self._closed = False
        self._waiting: dict[asyncio.Future[Any], asyncio.AbstractEventLoop] = {}
        """Callers' futures not answered yet, with their loops (failed at ``stop``)."""
        self._inbox = _Mailbox(self.loop)
        self._outboxes: dict[asyncio.AbstractEventLoop, _Mailbox] = {}
        """One mailbox per calling loop, for the outcomes going back to it."""
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_forever()

    @property
    def thread(self) -> threading.Thread:
        """The thread the loop runs on."""
        return self._thread

    def post(self, callback: Callable[[], None]) -> None:
        """Run ``callback`` on the loop soon, from any thread; ``RuntimeError`` once ``stop``
        has begun (a callback posted before then runs before the loop's tasks are cancelled,
        so a task it starts is cancelled with them, never left pending)."""
        with self._lock:
            if self._closed:
                raise RuntimeError("the loop has stopped")
            self._inbox.post(callback)

    def _outbox(self, caller: asyncio.AbstractEventLoop) -> _Mailbox:
        with self._lock:
            outbox = self._outboxes.get(caller)
            if outbox is None:
                if len(self._outboxes) > 64:  # callers come and go: forget closed loops
                    self._outboxes = {k: v for k, v in self._outboxes.items()
                                      if not k.is_closed()}
                outbox = self._outboxes[caller] = _Mailbox(caller)
            return outbox

    async def run(self, work: Callable[[], Coroutine[Any, Any, T]]) -> T:
        """Await ``work()`` run on this loop, from a coroutine on another loop."""
        caller = asyncio.get_running_loop()
        if caller is self.loop:
            return await work()
        outcome: asyncio.Future[T] = caller.create_future()
        started: list[asyncio.Task[T]] = []
        outbox = self._outbox(caller)

        def settle(task: asyncio.Task[T]) -> None:
            # RuntimeError: the caller's loop has closed, nobody waits any more.
            with contextlib.suppress(RuntimeError):
                outbox.post(lambda: _copy_outcome(task, outcome))

        def cancel() -> None:
            if started:
                started[0].cancel()

        def begin() -> None:
            task = self.loop.create_task(work())
            started.append(task)
            task.add_done_callback(settle)

        with self._lock:
            self._waiting[outcome] = caller
        try:
            self.post(begin)
            return await outcome
        except asyncio.CancelledError:
            # ``begin`` was scheduled first, so the task exists when this runs.
            with contextlib.suppress(RuntimeError):
                self.post(cancel)
            raise
        finally:
            with self._lock:
                self._waiting.pop(outcome, None)

    def submit(self, work: Coroutine[Any, Any, T]) -> Future[T]:
        """Run ``work`` on the loop for a blocking caller; cancelling the future cancels it."""
        with self._lock:
            if self._closed:
                work.close()
                failed: Future[T] = Future()
                failed.set_exception(RuntimeError("the loop has stopped"))
                return failed
            return asyncio.run_coroutine_threadsafe(work, self.loop)

    def stop(self, timeout: float = 10) -> None:
        """Cancel every task left on the loop, let them unwind, stop it and join the thread."""
        if not self._thread.is_alive():
            return
        if threading.current_thread() is self._thread:
            raise RuntimeError("a LoopThread cannot stop itself from its own loop")

        async def finish() -> None:
            tasks = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            await self.loop.shutdown_asyncgens()

        with self._lock:  # nothing new is accepted; what was posted runs before ``finish``
            self._closed = True
        # Whatever the tasks did while finishing, the loop is stopped below.
        with contextlib.suppress(Exception):
            asyncio.run_coroutine_threadsafe(finish(), self.loop).result(timeout)
        with self._lock:
            waiting = list(self._waiting.items())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout)
        if not self._thread.is_alive():
            self.loop.close()
        for outcome, caller in waiting:  # arrived too late to run
            with contextlib.suppress(RuntimeError):
                caller.call_soon_threadsafe(_fail, outcome)

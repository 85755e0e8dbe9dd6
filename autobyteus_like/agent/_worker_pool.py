"""WorkerPool: up to N threads, started on demand, fed from one C-level queue.

Used for sync tool bodies instead of ``ThreadPoolExecutor``, whose Python-level queue made a
submit cost ~21 us of the agent's time on the reference machine, and which cannot give up a
thread stuck in a job. Here a job that overran its timeout can be ``abandon``-ed: its thread
stops counting against the limit (a fresh one takes its place) and ends when the job returns.
A thread idle for ``idle_s`` ends, so an agent that has not run a tool for a while holds no tool
thread (on a host of hundreds of mostly idle members, hundreds fewer threads); the next call
starts one again (~0.1 ms, against a call's many).
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from typing import Any

from loguru import logger

from autobyteus_like.agent._quiet_wakeup import wake_quietly

__all__ = ["WorkerPool"]


class WorkerPool:
    """Runs ``job(*args)`` on the first free thread. A job that raises (even ``SystemExit``) is
    logged and costs nothing but itself: the thread goes on with the next job."""

    def __init__(self, name: str, max_workers: int, idle_s: float | None = None,
                 started: Callable[[threading.Thread], None] | None = None) -> None:
        self._name = name
        self._max = max_workers
        self._idle_s = idle_s
        self._on_started = started
        """Told of each thread as it starts (an agent keeps the threads it joins on stop)."""
        self._jobs: queue.SimpleQueue[tuple[Callable[..., Any], tuple[Any, ...]] | None] = (
            queue.SimpleQueue()
        )
        self._threads: set[threading.Thread] = set()  # the threads that count against _max
        self._abandoned: set[threading.Thread] = set()
        self._started = 0
        self._lock = threading.Lock()
        self._available = 0  # idle threads no queued job has claimed
        self._backlog = 0  # queued jobs no thread has claimed
        self._closed = False

    def submit(self, job: Callable[..., Any], *args: Any) -> None:
        """Queue a job; start a thread for it if none is free and the limit allows."""
        with self._lock:
            if self._closed:
                raise RuntimeError(f"worker pool {self._name} is shut down")
            if self._available:
                self._available -= 1
            elif len(self._threads) < self._max:
                self._start_thread()
            else:
                self._backlog += 1
        self._jobs.put((job, args))

    def abandon(self, thread: threading.Thread) -> None:
        """``thread``'s job overran: stop counting it, so a queued job gets a fresh thread; the
        abandoned thread ends as soon as its job returns."""
        with self._lock:
            if thread not in self._threads:
                return
            self._threads.discard(thread)
            self._abandoned.add(thread)
            if self._backlog and not self._closed:
                self._backlog -= 1
                self._start_thread()

    def _start_thread(self) -> None:
        """Start one worker (the caller holds the lock and has accounted for its first job)."""
        thread = threading.Thread(target=self._work, name=f"{self._name}-{self._started}",
                                  daemon=True)
        self._started += 1
        self._threads.add(thread)
        thread.start()
        if self._on_started is not None:
            self._on_started(thread)

    def _work(self) -> None:
        me = threading.current_thread()
        wake_quietly()
        while True:
            try:
                item = self._jobs.get(timeout=self._idle_s)
            except queue.Empty:  # idle for idle_s: end, unless a job was just given to it
                with self._lock:
                    if self._available and me in self._threads and not self._closed:
                        self._available -= 1
                        self._threads.discard(me)
                        return
                continue
            if item is None:
                return
            job, args = item
            try:
                job(*args)
            except BaseException as exc:  # a job's crash must not take its thread's place
                logger.opt(exception=exc).error("worker pool {}: a job raised", self._name)
            with self._lock:
                if me in self._abandoned:
                    self._abandoned.discard(me)
                    return
                if self._backlog:
                    self._backlog -= 1
                else:
                    self._available += 1

    def shutdown(self, wait: bool, until: float | None = None) -> list[threading.Thread]:
        """Let every thread end after its current job; ``wait`` joins them until the
        monotonic time ``until`` if given (abandoned ones, whose jobs overran, are not waited
        for); the threads still running, abandoned ones included."""
        with self._lock:
            first, self._closed = not self._closed, True
            threads = list(self._threads)
            abandoned = list(self._abandoned)
        if first:
            for _ in threads:
                self._jobs.put(None)
        if wait:
            for thread in threads:
                thread.join(None if until is None else max(0.0, until - time.monotonic()))
        return [thread for thread in threads + abandoned if thread.is_alive()]

"""WorkerPool: up to N threads, started on demand, fed from one C-level queue.

Used for sync tool bodies instead of ``ThreadPoolExecutor``, whose Python-level queue made a
submit cost ~21 us of the agent's time on the reference machine.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from typing import Any

__all__ = ["WorkerPool"]


class WorkerPool:
    """Runs ``job(*args)`` on the first free thread; jobs must catch their own errors."""

    def __init__(self, name: str, max_workers: int) -> None:
        self._name = name
        self._max = max_workers
        self._jobs: queue.SimpleQueue[tuple[Callable[..., Any], tuple[Any, ...]] | None] = (
            queue.SimpleQueue()
        )
        self._threads: list[threading.Thread] = []
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
                thread = threading.Thread(
                    target=self._work, name=f"{self._name}-{len(self._threads)}", daemon=True
                )
                self._threads.append(thread)
                thread.start()
            else:
                self._backlog += 1
        self._jobs.put((job, args))

    def _work(self) -> None:
        while (item := self._jobs.get()) is not None:
            job, args = item
            job(*args)
            with self._lock:
                if self._backlog:
                    self._backlog -= 1
                else:
                    self._available += 1

    def shutdown(self, wait: bool) -> None:
        """Let every thread end after its current job; ``wait`` joins them."""
        with self._lock:
            self._closed = True
            threads = list(self._threads)
        for _ in threads:
            self._jobs.put(None)
        if wait:
            for thread in threads:
                thread.join()

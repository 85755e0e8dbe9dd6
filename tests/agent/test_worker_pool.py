"""The tool threads' pool: idle threads end, and no job is lost when one ends as a job comes."""

from __future__ import annotations

import threading
import time

from autobyteus_like.agent._worker_pool import WorkerPool


def test_an_idle_thread_ends_and_the_next_job_starts_another():
    pool = WorkerPool("idle", 2, idle_s=0.05)
    ran: list[threading.Thread] = []
    done = threading.Event()

    def job() -> None:
        ran.append(threading.current_thread())
        done.set()

    try:
        pool.submit(job)
        assert done.wait(5)
        first = ran[0]
        first.join(5)
        assert not first.is_alive()  # idle for idle_s: it ended by itself
        done.clear()
        pool.submit(job)
        assert done.wait(5)
        assert ran[1] is not first
    finally:
        assert pool.shutdown(wait=True, until=time.monotonic() + 5) == []


def test_no_job_is_lost_when_a_thread_idles_out_as_the_job_is_given_and_the_limit_holds():
    pool = WorkerPool("race", 2, idle_s=0.0005)  # threads idle out all the time
    lock = threading.Lock()
    state = {"ran": 0, "running": 0, "most": 0}
    threads: set[threading.Thread] = set()
    all_ran = threading.Event()
    jobs = 1500

    def job() -> None:
        with lock:
            state["running"] += 1
            state["most"] = max(state["most"], state["running"])
            threads.add(threading.current_thread())
        with lock:
            state["running"] -= 1
            state["ran"] += 1
            if state["ran"] == jobs:
                all_ran.set()

    try:
        for number in range(jobs):
            pool.submit(job)
            if number % 3 == 0:
                time.sleep(0.0005 * (number % 4))  # around the idle time, so some threads end
        assert all_ran.wait(20), f"{state['ran']} of {jobs} jobs ran"
        assert state["most"] <= 2
        assert len(threads) > 2  # threads did idle out and were started again
    finally:
        assert pool.shutdown(wait=True, until=time.monotonic() + 5) == []

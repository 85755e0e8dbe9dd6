"""An agent's threads do not preempt the thread that wakes them (Linux's ``SCHED_BATCH``).

A hand-off (an event posted to the agent, a request to its LLM worker, a call to a tool
thread) wakes the receiving thread while the sender still holds the interpreter lock: it has a
few lines left before it sleeps on its own mailbox. Linux lets a woken thread that has used
little CPU preempt the sender at once; the receiver then finds the interpreter lock taken,
sleeps again, and is woken a second time when the sender lets go. That is three context
switches for one hand-off wherever the two threads share a core (one pinned core, or a host
packed with agents), and it made an agent's tool round trip wake its threads about 13 times
where its 8 hand-offs need 8.

A ``SCHED_BATCH`` thread keeps its priority and CPU share; it only gives up preempting on
wake-up: it runs once the sender sleeps (or at the sender's next tick, a few milliseconds, if
the sender computes on), which is what the interpreter lock imposes anyway. Threads a batch
thread starts (a tool body's own) inherit the policy. Where the policy does not exist or may
not be set (not Linux; a sandbox that forbids it), threads keep the default.
"""

from __future__ import annotations

import os

__all__ = ["wake_quietly"]


def wake_quietly() -> bool:
    """Make the calling thread ``SCHED_BATCH``; whether it is now."""
    setter = getattr(os, "sched_setscheduler", None)
    batch = getattr(os, "SCHED_BATCH", None)
    if setter is None or batch is None:
        return False
    try:
        setter(0, batch, os.sched_param(0))  # 0: the calling thread (Linux)
    except OSError:
        return False
    return True

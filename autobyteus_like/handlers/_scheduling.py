"""The turn's scheduling policy: which of a response's calls may run now, and when all are done.

Pure bookkeeping, no threads and no events: the agent's handlers tell a ``TurnSchedule`` what
happened (a call was parsed, approved, finished) and ask it what may start next. Calls keep the
order the LLM wrote them in (their results go back in that order), whatever order they finish
in.

Policy: in parallel mode every ready call starts at once; a tool marked ``sequential`` is a
barrier: it starts only when nothing runs, and nothing after it starts until it is done. In
sequential mode every call is such a barrier (seed 000: "executed in order, one completes before
the next starts"). A handoff (``transfer_to_<member>``) runs last: only once the response is
complete (``close``) and every other call of it has its result, approvals included; the first
handoff of a response is ``first_handoff``.

Every operation costs O(log n) in the number of calls (a response may hold thousands): ready
calls wait in a heap by position, unfinished barriers in another (a finished one leaves it
when it reaches the top), and counters answer "is anything running / waiting for a person /
left to do".
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator
from dataclasses import dataclass
from enum import StrEnum
from operator import attrgetter
from typing import TYPE_CHECKING, Any

from autobyteus_like.tools._handoff import handoff_receiver

if TYPE_CHECKING:
    from autobyteus_like.tools._definition import ToolDefinition
    from autobyteus_like.tools._invocation import ToolInvocation, ToolResult

__all__ = ["Slot", "SlotState", "TurnSchedule"]

_INVOCATION = attrgetter("invocation")


class SlotState(StrEnum):
    """Where one call of a response stands."""

    PENDING = "pending"  # parsed, not yet validated
    AWAITING_APPROVAL = "awaiting_approval"
    READY = "ready"  # approved, waiting for its turn to run
    RUNNING = "running"
    DONE = "done"


@dataclass(eq=False, slots=True)
class Slot:
    """One call of a response, in invocation order; its result goes back in this position.
    Its state changes only through the schedule."""

    invocation: ToolInvocation
    position: int
    tool: ToolDefinition | None = None
    state: SlotState = SlotState.PENDING
    result: ToolResult | None = None
    bound: Any = None
    """The arguments as validated once, handed to the tool as they are."""
    approved: bool = False
    """A person allowed it (before a resume, too): it is not asked about again."""

    @property
    def awaiting_approval(self) -> bool:
        """Whether it waits for a person."""
        return self.state is SlotState.AWAITING_APPROVAL


class TurnSchedule:
    """The calls of one LLM response and the rule for running them."""

    __slots__ = ("_awaiting", "_barriers", "_by_id", "_closed", "_last", "_ready", "_running",
                 "_running_barrier", "_sequential", "_slots", "_unfinished", "first_handoff")

    def __init__(self, sequential: bool) -> None:
        self._sequential = sequential
        self._slots: list[Slot] = []
        self._by_id: dict[str, Slot] = {}
        self._ready: list[int] = []  # heap of positions of READY slots
        self._barriers: list[int] = []  # heap of positions of barriers not yet DONE
        self._running = 0
        self._running_barrier = False
        self._awaiting = 0
        self._unfinished = 0
        self._closed = False
        self._last: Slot | None = None  # a ready handoff, waiting for the others to settle
        self.first_handoff: Slot | None = None
        """The response's first handoff call, in invocation order (the one that may win)."""

    def _is_barrier(self, slot: Slot) -> bool:
        if handoff_receiver(slot.tool) is not None:
            return False  # it runs last anyway
        return self._sequential or (slot.tool is not None and slot.tool.sequential)

    def close(self) -> None:
        """The response is complete: no call joins it any more."""
        self._closed = True

    def add(self, invocation: ToolInvocation, tool: ToolDefinition | None) -> Slot:
        """Reserve the next result position for ``invocation`` (PENDING)."""
        slot = Slot(invocation, len(self._slots), tool)
        self._slots.append(slot)
        self._by_id[invocation.id] = slot
        self._unfinished += 1
        if self.first_handoff is None and handoff_receiver(tool) is not None:
            self.first_handoff = slot
        if self._is_barrier(slot):
            heapq.heappush(self._barriers, slot.position)
        return slot

    def find(self, invocation_id: str) -> Slot | None:
        """The slot of that call, if it belongs to this response."""
        return self._by_id.get(invocation_id)

    def await_approval(self, slot: Slot) -> None:
        """The call waits for a person (from PENDING)."""
        if slot.state is SlotState.PENDING:
            slot.state = SlotState.AWAITING_APPROVAL
            self._awaiting += 1

    def make_ready(self, slot: Slot) -> None:
        """The call may run once the policy allows (from PENDING or AWAITING_APPROVAL)."""
        if slot.state is SlotState.AWAITING_APPROVAL:
            self._awaiting -= 1
        elif slot.state is not SlotState.PENDING:
            return
        slot.state = SlotState.READY
        if handoff_receiver(slot.tool) is not None:
            self._last = slot  # at most one gets here: a second one is refused first
        else:
            heapq.heappush(self._ready, slot.position)

    def _first_barrier(self) -> int:
        """The position of the first barrier not yet done (past the end if none)."""
        barriers, slots = self._barriers, self._slots
        while barriers and slots[barriers[0]].state is SlotState.DONE:
            heapq.heappop(barriers)
        return barriers[0] if barriers else len(slots)

    def startable(self) -> list[Slot]:
        """The ready calls that may start now, in invocation order, marked RUNNING."""
        last = self._last
        if last is not None and self._closed and self._unfinished == 1:
            self._last = None  # every other call has its result: the handoff goes now
            return [self._run(last)]
        if self._running_barrier or not self._ready:
            return []
        ready, slots = self._ready, self._slots
        first_barrier = self._first_barrier()
        started: list[Slot] = []
        while ready and ready[0] < first_barrier:
            started.append(self._run(slots[heapq.heappop(ready)]))
        if (ready and ready[0] == first_barrier and not self._running and not started):
            heapq.heappop(ready)
            started.append(self._run(slots[first_barrier]))
            self._running_barrier = True
        return started

    def _run(self, slot: Slot) -> Slot:
        slot.state = SlotState.RUNNING
        self._running += 1
        return slot

    def finish(self, invocation_id: str, result: ToolResult) -> Slot | None:
        """Record a call's result; None if the call is not this response's or already has one
        (a stray or a duplicate, which must not count)."""
        slot = self._by_id.get(invocation_id)
        if slot is None or slot.result is not None:
            return None
        if slot.state is SlotState.RUNNING:
            self._running -= 1
            if self._is_barrier(slot):
                self._running_barrier = False
        elif slot.state is SlotState.AWAITING_APPROVAL:
            self._awaiting -= 1
        elif slot.state is SlotState.READY and slot is self._last:
            self._last = None
        elif slot.state is SlotState.READY:  # a result before it ran: it must not start now
            self._ready.remove(slot.position)
            heapq.heapify(self._ready)
        slot.result = result
        slot.state = SlotState.DONE
        self._unfinished -= 1
        return slot

    @property
    def done(self) -> bool:
        """Whether every call has its result."""
        return self._unfinished == 0

    @property
    def waiting_for_approval(self) -> bool:
        """Whether any call waits for a person."""
        return self._awaiting > 0

    @property
    def waiting_only_for_people(self) -> bool:
        """Whether every call left waits for a person (none pending, ready or running)."""
        return self._awaiting > 0 and self._unfinished == self._awaiting

    @property
    def running(self) -> bool:
        """Whether any call is executing."""
        return self._running > 0

    def results(self) -> list[ToolResult]:
        """Every result, in invocation order (call only when ``done``)."""
        return [slot.result for slot in self._slots if slot.result is not None]

    def invocations(self) -> tuple[ToolInvocation, ...]:
        """Every call, in invocation order."""
        return tuple(map(_INVOCATION, self._slots))

    def __iter__(self) -> Iterator[Slot]:
        return iter(self._slots)

    def __len__(self) -> int:
        return len(self._slots)

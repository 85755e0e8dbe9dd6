"""The turn's scheduling policy: which of a response's calls may run now, and when all are done.

Pure bookkeeping, no threads and no events: the agent's handlers tell a ``TurnSchedule`` what
happened (a call was parsed, approved, started, finished) and ask it what may start next. Calls
keep the order the LLM wrote them in (their results go back in that order), whatever order they
finish in.

Policy: in parallel mode every ready call starts at once; a tool marked ``sequential`` is a
barrier: it starts only when nothing runs, and nothing after it starts until it is done. In
sequential mode every call is such a barrier (seed 000: "executed in order, one completes before
the next starts").
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from autobyteus_like.tools.definition import ToolDefinition
    from autobyteus_like.tools.invocation import ToolInvocation, ToolResult

__all__ = ["Slot", "SlotState", "TurnSchedule"]


class SlotState(StrEnum):
    """Where one call of a response stands."""

    PENDING = "pending"  # parsed, not yet validated
    AWAITING_APPROVAL = "awaiting_approval"
    READY = "ready"  # approved, waiting for its turn to run
    RUNNING = "running"
    DONE = "done"


@dataclass(eq=False, slots=True)
class Slot:
    """One call of a response, in invocation order; its result goes back in this position."""

    invocation: ToolInvocation
    tool: ToolDefinition | None = None
    state: SlotState = SlotState.PENDING
    result: ToolResult | None = None
    bound: Any = None
    """The arguments as validated once (a pydantic model), handed to the tool as they are."""


class TurnSchedule:
    """The calls of one LLM response and the rule for running them."""

    __slots__ = ("_by_id", "_running", "_sequential", "_slots", "_unfinished")

    def __init__(self, sequential: bool) -> None:
        self._sequential = sequential
        self._slots: list[Slot] = []
        self._by_id: dict[str, Slot] = {}
        self._running = 0
        self._unfinished = 0

    def add(self, invocation: ToolInvocation, tool: ToolDefinition | None) -> Slot:
        """Reserve the next result position for ``invocation``."""
        slot = Slot(invocation, tool)
        self._slots.append(slot)
        self._by_id[invocation.id] = slot
        self._unfinished += 1
        return slot

    def find(self, invocation_id: str) -> Slot | None:
        """The slot of that call, if it belongs to this response."""
        return self._by_id.get(invocation_id)

    def _barrier(self, slot: Slot) -> bool:
        return self._sequential or (slot.tool is not None and slot.tool.sequential)

    def startable(self) -> list[Slot]:
        """The ready calls that may start now, in invocation order, marked RUNNING."""
        slots = self._slots
        if self._running and any(s.state is SlotState.RUNNING and self._barrier(s)
                                 for s in slots):
            return []
        started: list[Slot] = []
        running = self._running
        for slot in slots:
            state = slot.state
            if state is SlotState.DONE:
                continue
            barrier = self._barrier(slot)
            if state is SlotState.READY and not (barrier and running):
                slot.state = SlotState.RUNNING
                started.append(slot)
                running += 1
            if barrier:
                break
        self._running = running
        return started

    def finish(self, invocation_id: str, result: ToolResult) -> Slot | None:
        """Record a call's result; None if the call is not this response's or already has one
        (a stray or a duplicate, which must not count)."""
        slot = self._by_id.get(invocation_id)
        if slot is None or slot.result is not None:
            return None
        if slot.state is SlotState.RUNNING:
            self._running -= 1
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
        return any(slot.state is SlotState.AWAITING_APPROVAL for slot in self._slots)

    @property
    def running(self) -> bool:
        """Whether any call is executing."""
        return self._running > 0

    def results(self) -> list[ToolResult]:
        """Every result, in invocation order (call only when ``done``)."""
        return [slot.result for slot in self._slots if slot.result is not None]

    def invocations(self) -> tuple[ToolInvocation, ...]:
        """Every call, in invocation order."""
        return tuple(slot.invocation for slot in self._slots)

    def __iter__(self) -> Iterator[Slot]:
        return iter(self._slots)

    def __len__(self) -> int:
        return len(self._slots)

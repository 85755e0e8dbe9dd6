"""Ledgers: where usage is summed, and where a run's limits are kept.

A ``UsageLedger`` sums (a session's usage). A ``RunBudget`` is the ledger of one run with its
limits: an agent's run (from start to stop) and, in a team, the team's run above its members'.
Members' actors add to them from their own threads, hence the locks. When a figure crosses a
limit the budget ends the run: it remembers the error and tells every actor of the run (and a
member's budget tells its team's), so all of them stop their work.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from decimal import Decimal

from autobyteus_like.errors import UsageLimitExceededError
from autobyteus_like.hooks._protocol import CallKind
from autobyteus_like.usage._limits import UsageLimits
from autobyteus_like.usage._totals import Tally, UsageTotals

__all__ = ["RunBudget", "UsageLedger"]


class UsageLedger:
    """A thread-safe running sum of usage."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._tally = Tally()

    def add_response(self, input_tokens: int, output_tokens: int, cached: int, reasoning: int,
                     cost: Decimal | None, model: str, reported: bool = True) -> None:
        with self._lock:
            self._tally.add_response(input_tokens, output_tokens, cached, reasoning, cost, model,
                                     reported)

    def add_calls(self, llm_calls: int, tool_calls: int) -> None:
        with self._lock:
            self._tally.llm_calls += llm_calls
            self._tally.tool_calls += tool_calls

    def merge(self, tally: Tally) -> None:
        """Add a whole tally (what a run spent in its earlier processes)."""
        with self._lock:
            self._tally.merge(tally)

    @property
    def totals(self) -> UsageTotals:
        with self._lock:
            return self._tally.snapshot()


class RunBudget(UsageLedger):
    """One run's usage, its limits (optional) and, once crossed, the error that ended it.
    ``parent`` is the team's run budget for a member's. An agent's own budget has one writer,
    its actor, which adds to ``tally`` directly (no lock on the hot path); a team's is
    shared and added to under the lock."""

    def __init__(self, limits: UsageLimits | None, scope: str,
                 parent: RunBudget | None = None) -> None:
        super().__init__()
        self.tally = self._tally
        self.limits = limits
        self.scope = scope
        self.parent = parent
        self._error: UsageLimitExceededError | None = None
        self._listeners: list[Callable[[UsageLimitExceededError], None]] = []
        self._children: list[RunBudget] = []
        if parent is not None:
            with parent._lock:
                parent._children.append(self)

    @property
    def error(self) -> UsageLimitExceededError | None:
        """The limit that ended this run (its own, its team's or a teammate's), or None."""
        return self._error

    def on_exceeded(self, listener: Callable[[UsageLimitExceededError], None]) -> None:
        """Call ``listener`` once (on the thread that crossed the limit) when this run ends,
        whoever crossed: this agent, its team, or a teammate."""
        with self._lock:
            self._listeners.append(listener)

    def check(self) -> UsageLimitExceededError | None:
        """Whether the run must end: a limit of this run (or its team's) is crossed, now or
        before. The first crossing ends the run for every actor listening."""
        if self._error is not None or (self.limits is None and self.parent is None):
            return self._error
        error = self.limits.crossed(self.totals, self.scope) if self.limits else None
        if error is not None:
            self.end(error)
        elif self.parent is not None:
            self.parent.check()  # ends this run too, through its children
        return self._error

    def claim(self, kind: CallKind) -> UsageLimitExceededError | None:
        """One more call of ``kind`` is about to be made: count it here (and in the team's
        run) and return None, or, when this run's limit (or its team's) has no room left,
        count nothing and return the error that refuses it. Check and count are one step
        under the lock, so two members never both take a team's last call."""
        if self._error is not None:
            return self._error
        limit = f"max_{kind}"
        allowed: int | None = getattr(self.limits, limit) if self.limits is not None else None
        with self._lock:
            made: int = getattr(self._tally, kind)
            if allowed is not None and made >= allowed:
                return UsageLimitExceededError(self.scope, limit, allowed, made + 1,
                                               refused=True)
            if self.parent is not None:  # lock order: a member's, then its team's
                error = self.parent.claim(kind)
                if error is not None:
                    return error
            setattr(self._tally, kind, made + 1)
        return None

    def release(self, kind: CallKind) -> None:
        """A call of ``kind`` this budget admitted (``claim``) is not made after all: its
        count is given back, here and in the team's run, under the same locks."""
        with self._lock:
            made: int = getattr(self._tally, kind)
            if made > 0:
                setattr(self._tally, kind, made - 1)
            if self.parent is not None:  # lock order: a member's, then its team's
                self.parent.release(kind)

    def end(self, error: UsageLimitExceededError) -> None:
        """End the run with ``error`` (the first error wins): a member's ends its team's,
        and a team's ends every member's."""
        with self._lock:
            if self._error is not None:
                return
            self._error = error
            listeners, children = list(self._listeners), list(self._children)
        for listener in listeners:
            listener(error)
        if self.parent is not None and self._ends_parent(error):
            self.parent.end(error)
        for child in children:
            child.end(error)

    def _ends_parent(self, error: UsageLimitExceededError) -> bool:
        """Whether ``error`` ending this run ends its parent's too (always, here)."""
        return True

"""UsageKeeper: where a run's usage is kept besides memory, so its limits hold across processes.

A run's budget belongs to the run, not to the process: a session keeps what the run has
spent (``store.session.SessionUsage``), so a run killed and resumed counts on from there instead
of from zero. The meter saves the figures each time it counts a call (before the request goes
out or the tool's body starts: a kill never loses a call that was made) and when a response
brings its tokens; a new run asks for what its earlier processes had spent. This base keeps
nothing (an agent without a session).
"""

from __future__ import annotations

from autobyteus_like.usage._totals import Tally

__all__ = ["UsageKeeper"]


class UsageKeeper:
    """Keeps nothing: every run starts from zero."""

    def carried(self) -> Tally | None:
        """What the run had spent in the processes before this one (None: it is new)."""
        return None

    def save(self, tally: Tally) -> None:
        """The run's figures as they are now (called on the agent's actor thread)."""

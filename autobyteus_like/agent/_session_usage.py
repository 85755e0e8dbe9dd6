"""SessionUsage: a run's usage kept in its session, so its budget survives a kill.

Each agent's run is one row of the session's usage table (``agent NAME``), rewritten each time
the meter counts (fenced like every write of the session: a process that lost the session
writes nothing). A process that takes a session its last process left unfinished (a turn open
or waiting, a message not delivered) goes on with that run, so each agent's budget counts on
from its row (and a team's from the sum of its members'); taking a session that was done
begins a new run from zero, as does a new run in the same process.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from autobyteus_like.usage._keeper import UsageKeeper
from autobyteus_like.usage._totals import Tally

if TYPE_CHECKING:
    from autobyteus_like.store._session import Session

__all__ = ["SessionUsage", "usage_run"]


def usage_run(agent: str) -> str:
    """The usage table's run key of an agent's run."""
    return f"agent {agent}"


class SessionUsage(UsageKeeper):
    """One agent's run usage in a session."""

    def __init__(self, session: Session, agent: str) -> None:
        self._session = session
        self._run = usage_run(agent)
        self._carries = session.carries_usage(agent)

    def carried(self) -> Tally | None:
        if not self._carries:
            return None
        record = self._session.saved_usage(self._run)
        return None if record is None else Tally.from_record(record)

    def save(self, tally: Tally) -> None:
        self._session.save_usage(tally.record(), self._run)

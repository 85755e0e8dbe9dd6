"""The one way an agent settles what its session's last process left unfinished.

A session's snapshot (``TurnSnapshot``) is taken when the agent starts; whatever it left
unfinished (the turn the process was in, messages waiting behind it) is settled exactly once,
by the caller, through ``UnfinishedTurns.settle``: going on with it (``resume()``) or ending it
(``abandon_unfinished(reason)``). Both are one ``ResumeTurns`` message to the actor, handled
by the turn machine's ``resume_turns``. Nothing resumes by itself: a ``send`` or ``reset``
while something is left unsettled is an ``UnfinishedSessionError`` saying both ways (work a
dead process began, with its costs and side effects, goes on only when asked).
"""

from __future__ import annotations

from concurrent.futures import Future
from typing import TYPE_CHECKING

from autobyteus_like.agent._actor_messages import ResumeTurns
from autobyteus_like.agent._member_replies import not_running
from autobyteus_like.agent._reconcile import reconcile_running
from autobyteus_like.errors import UnfinishedSessionError

if TYPE_CHECKING:
    from autobyteus_like.agent._actor_line import ActorLine
    from autobyteus_like.agent._toolbox import Toolbox
    from autobyteus_like.store._restore import TurnSnapshot
    from autobyteus_like.store._session import Session

__all__ = ["ResumedTurn", "UnfinishedTurns"]


class ResumedTurn:
    """A stored turn the agent goes on with: its message and the future of its answer."""

    __slots__ = ("reply", "sender", "text", "turn_id")

    def __init__(self, turn_id: int, text: str, sender: str | None, reply: Future[str]) -> None:
        self.turn_id, self.text, self.sender, self.reply = turn_id, text, sender, reply


class UnfinishedTurns:
    """What the session's last process left unfinished (``snapshot``, taken when the agent
    starts), settled once: ``settle(None)`` goes on with it, ``settle(reason)`` ends it."""

    __slots__ = ("line", "max_result_chars", "session", "snapshot", "toolbox")

    def __init__(self, line: ActorLine, toolbox: Toolbox, session: Session | None,
                 max_result_chars: int) -> None:
        self.line, self.toolbox, self.session = line, toolbox, session
        self.max_result_chars = max_result_chars
        self.snapshot: TurnSnapshot | None = None

    def require_settled(self) -> None:
        """Before a message or a reset: ``UnfinishedSessionError`` while what the session's
        last process left unfinished has been neither resumed nor abandoned."""
        restored = self.snapshot
        if restored is None or not restored.unfinished:
            return
        turn = restored.current or restored.queued[0]
        what = f"agent {self.line.name!r}'s turn {turn.turn_id} ({turn.text[:60]!r})"
        session = self.session.name if self.session is not None else "?"
        raise UnfinishedSessionError(session, what, "agent")

    def settle(self, abandon: str | None) -> list[ResumedTurn]:
        """Take the snapshot (once) and have the actor go on with its unfinished turns, or,
        with ``abandon`` (a reason), end them."""
        line = self.line
        with line.lock:
            restored, self.snapshot = self.snapshot, None
            ref = line.ref
        if restored is None or not restored.unfinished:
            return []
        if ref is None:
            raise not_running(line.name)
        reconcile_running(restored, self.toolbox.tools, line.name,  # (a call it died running)
                          None if self.session is None else self.session.name,
                          self.max_result_chars)
        if abandon is not None:
            ref.tell(ResumeTurns(restored, abandon=abandon))
            return []
        turns = ([restored.current] if restored.current is not None else []) + [
            turn for turn in restored.queued if not turn.reset]  # a reset has no answer
        resumed = [ResumedTurn(turn.turn_id, turn.text, turn.sender, Future()) for turn in turns]
        ref.tell(ResumeTurns(restored, tuple(turn.reply for turn in resumed)))
        return resumed

"""The one way an agent settles what its session's last process left unfinished.

A session's snapshot (``TurnSnapshot``) is taken when the agent starts; whatever it left
unfinished (the turn the process was in, messages waiting behind it) is settled exactly once,
by the caller, through ``_settle_stored``: going on with it (``resume()``) or ending it
(``abandon_unfinished(reason)``). Both are one ``ResumeTurns`` message to the actor, handled
by the turn machine's ``resume_turns``. Nothing resumes by itself: a ``send`` or ``reset``
while something is left unsettled is an ``UnfinishedSessionError`` saying both ways (work a
dead process began, with its costs and side effects, goes on only when asked).
"""

from __future__ import annotations

import threading
from concurrent.futures import Future
from typing import TYPE_CHECKING

from autobyteus_like.agent._actor_messages import ResumeTurns
from autobyteus_like.agent._member_replies import not_running
from autobyteus_like.errors import UnfinishedSessionError

if TYPE_CHECKING:
    import pykka

    from autobyteus_like.agent._actor import AgentActor
    from autobyteus_like.store._restore import TurnSnapshot
    from autobyteus_like.store._session import Session

__all__ = ["AgentResume", "ResumedTurn"]


class ResumedTurn:
    """A stored turn the agent goes on with: its message and the future of its answer."""

    __slots__ = ("reply", "sender", "text", "turn_id")

    def __init__(self, turn_id: int, text: str, sender: str | None, reply: Future[str]) -> None:
        self.turn_id, self.text, self.sender, self.reply = turn_id, text, sender, reply


class AgentResume:
    """``resume`` and ``abandon_unfinished`` over an agent's own surface."""

    name: str
    _lock: threading.Lock
    _ref: pykka.ActorRef[AgentActor] | None
    _restored: TurnSnapshot | None
    session: Session | None

    def resume(self) -> list[ResumedTurn]:
        """Go on with what the session's last process left unfinished: the turn it was in
        and the messages waiting behind it (empty when nothing was, or it was settled
        already). Subscribe to ``events`` first to see them; each turn's ``reply`` completes
        with its answer. Call it (or ``abandon_unfinished``) before the first ``send``."""
        return self._settle_stored(None)

    def abandon_unfinished(self, reason: str) -> None:
        """End what the session's last process left unfinished without going on with it:
        the turn it was in gets INTERRUPTED results for its calls and fails with ``reason``,
        as do the messages waiting behind it; the conversation itself is kept (a restarted
        Ray member, whose senders were already told; a served team's cancelled ask)."""
        self._settle_stored(reason)

    def _require_settled(self) -> None:
        """Before a message or a reset: ``UnfinishedSessionError`` while what the session's
        last process left unfinished has been neither resumed nor abandoned."""
        restored = self._restored
        if restored is None or not restored.unfinished:
            return
        turn = restored.current or restored.queued[0]
        what = f"agent {self.name!r}'s turn {turn.turn_id} ({turn.text[:60]!r})"
        session = self.session.name if self.session is not None else "?"
        raise UnfinishedSessionError(session, what, "agent")

    def _settle_stored(self, abandon: str | None) -> list[ResumedTurn]:
        """Take the snapshot (once) and have the actor go on with its unfinished turns, or,
        with ``abandon`` (a reason), end them."""
        with self._lock:
            restored, self._restored = self._restored, None
            ref = self._ref
        if restored is None or not restored.unfinished:
            return []
        if ref is None:
            raise not_running(self.name)
        if abandon is not None:
            ref.tell(ResumeTurns(restored, abandon=abandon))
            return []
        turns = ([restored.current] if restored.current is not None else []) + [
            turn for turn in restored.queued if not turn.reset]  # a reset has no answer
        resumed = [ResumedTurn(turn.turn_id, turn.text, turn.sender, Future()) for turn in turns]
        ref.tell(ResumeTurns(restored, tuple(turn.reply for turn in resumed)))
        return resumed

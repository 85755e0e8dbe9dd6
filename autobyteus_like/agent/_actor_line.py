"""An agent's line to the actor that runs its turns: the actor's reference (None while it is not
running), the threads it runs on, the current run's stop flag, the next turn's id, and whether
its turns are traced. Every held object of ``Agent`` that talks to the actor goes through it."""

from __future__ import annotations

import itertools
import threading
from typing import TYPE_CHECKING

import pykka

from autobyteus_like.agent._member_replies import not_running, on_own_thread
from autobyteus_like.tools._context import CancelFlag

if TYPE_CHECKING:
    from autobyteus_like.agent._actor import AgentActor
    from autobyteus_like.events import AgentEvent

__all__ = ["ActorLine"]


class ActorLine:
    """The actor of one agent as its held objects reach it (``ref`` swapped under ``lock``)."""

    __slots__ = ("lock", "name", "ref", "run_stopped", "threads", "traced", "turn_ids")

    def __init__(self, name: str) -> None:
        self.name = name
        self.ref: pykka.ActorRef[AgentActor] | None = None
        self.threads: list[threading.Thread] = []
        self.lock = threading.Lock()
        self.run_stopped = CancelFlag()  # each run's own (stop_run)
        self.turn_ids = itertools.count(1)
        self.traced = False

    def live(self) -> pykka.ActorRef[AgentActor]:
        """The running actor (``AgentStoppedError``: not running)."""
        ref = self.ref
        if ref is None:
            raise not_running(self.name)
        return ref

    def tell(self, event: AgentEvent) -> None:
        """Queue ``event`` for the actor (``AgentStoppedError`` when it is not running)."""
        try:
            self.live().tell(event)
        except pykka.ActorDeadError:  # stopped by one of its own threads
            raise not_running(self.name) from None

    def next_turn(self) -> int:
        """The id of the next turn (a message or a reset)."""
        return next(self.turn_ids)

    def on_own_thread(self) -> bool:
        """Whether the caller is one of the actor's threads (a hook, a handler, a tool)."""
        return threading.current_thread() in self.threads

    def refuse_own_thread(self, what: str) -> None:
        """``OwnThreadError`` for ``what``, a call that waits for the actor, on its threads."""
        if threading.current_thread() in self.threads:
            raise on_own_thread(self.name, what)

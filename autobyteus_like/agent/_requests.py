"""What a caller asks of a running agent, beside sending: a turn's answer (``run``, ``arun``,
typed by the output type) and the decision on a waiting call (``approve``, ``deny``, refused
with ``UnknownApprovalError`` when no call of that id waits)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterable, Sequence
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from typing import TYPE_CHECKING, Any

import pykka

from autobyteus_like.agent._member_replies import not_running, on_own_thread
from autobyteus_like.errors import UnknownApprovalError
from autobyteus_like.events import AgentEvent, ApprovalDenied, ApprovalGranted
from autobyteus_like.history._messages import HistoryMessage
from autobyteus_like.tools._image_content import ImageContent

if TYPE_CHECKING:
    from autobyteus_like.agent._actor import AgentActor
    from autobyteus_like.output._spec import OutputSpec

__all__ = ["AgentRequests"]


class AgentRequests:
    """``run``, ``arun``, ``approve`` and ``deny`` over an agent's own surface."""

    name: str
    output: OutputSpec | None
    _ref: pykka.ActorRef[AgentActor] | None
    _threads: list[threading.Thread]

    if TYPE_CHECKING:  # the Agent's own
        def _submit(self, text: str | Sequence[str | ImageContent], *,
                    sender: str | None = None, mail_id: str | None = None,
                    trace_parent: object | None = None,
                    history: Iterable[HistoryMessage] | None = None
                    ) -> tuple[int, Future[str]]: ...

        def _tell(self, event: AgentEvent) -> None: ...

    def answer(self, text: str) -> Any:
        """A turn's answer as the caller gets it: the output type's value for a typed agent
        (its answer travels as JSON text), else the text itself."""
        return text if self.output is None else self.output.value(text)

    def run(self, text: str | Sequence[str | ImageContent], timeout: float | None = None, *,
            history: Iterable[HistoryMessage] | None = None) -> Any:
        """Send a message and block until its turn completes; return the final answer (a
        value of ``output_type`` when the config has one, else text). ``history`` replaces
        the conversation first (``agent.history`` of any agent, in any format).

        Raises ``AgentTurnError`` if the turn failed (LLM error, max_iterations, ...;
        ``OutputValidationError`` when no answer fitted the output type), ``TimeoutError`` if
        it did not finish in time (the turn goes on).
        """
        if threading.current_thread() in self._threads:  # it would wait for itself
            raise on_own_thread(self.name, "run()")
        try:
            return self.answer(self._submit(text, history=history)[1].result(timeout))
        except FutureTimeout:
            raise TimeoutError(
                f"agent {self.name!r} did not finish the turn within {timeout} s"
            ) from None

    async def arun(self, text: str | Sequence[str | ImageContent],
                   timeout: float | None = None, *,
                   history: Iterable[HistoryMessage] | None = None) -> Any:
        """``run`` for asyncio hosts: awaits the turn without blocking the event loop."""
        if threading.current_thread() in self._threads:  # it would wait for itself
            raise on_own_thread(self.name, "arun()")
        reply = self._submit(text, history=history)[1]
        try:
            return self.answer(await asyncio.wait_for(asyncio.wrap_future(reply), timeout))
        except TimeoutError:
            raise TimeoutError(
                f"agent {self.name!r} did not finish the turn within {timeout} s"
            ) from None

    def approve(self, invocation_id: str) -> None:
        """Let a call that waits for approval run (``UnknownApprovalError`` naming the
        waiting calls if none has that id)."""
        self._decide(ApprovalGranted(agent=self.name, invocation_id=invocation_id))

    def deny(self, invocation_id: str, reason: str = "denied by the user") -> None:
        """Refuse a waiting call; the LLM gets a DENIED result with ``reason``."""
        self._decide(ApprovalDenied(agent=self.name, invocation_id=invocation_id,
                                    reason=reason))

    def _decide(self, decision: ApprovalGranted | ApprovalDenied) -> None:
        """Check and decide in one step on the actor (two deciders: one wins, the other is
        told no such call waits any more)."""
        ref = self._ref
        if ref is None:
            raise not_running(self.name)
        if threading.current_thread() in self._threads:  # it would wait for itself
            raise on_own_thread(self.name, "approve() or deny()")
        try:
            waiting: list[str] | None = ref.proxy().decide(decision).get(timeout=10)
        except pykka.ActorDeadError:
            raise not_running(self.name) from None
        if waiting is not None:
            raise UnknownApprovalError(self.name, decision.invocation_id, waiting)

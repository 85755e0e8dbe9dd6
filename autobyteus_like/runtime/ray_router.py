"""``send_message_to`` inside a member's Ray actor: straight to the teammate's actor."""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

import ray
from ray.exceptions import GetTimeoutError, RayActorError, RayTaskError

from autobyteus_like.errors import ToolFailure
from autobyteus_like.events import AgentEvent
from autobyteus_like.mail.messaging import check_recipient
from autobyteus_like.runtime.ray_records import Delivered
from autobyteus_like.runtime.ray_sessions import HostMail
from autobyteus_like.tools.invocation import ErrorCode

__all__ = ["PeerRouter"]

_RETRY_S = 0.2
"""How often a stored message is offered again to a teammate Ray is restarting."""


class PeerRouter:
    """Delivers a member's messages to its teammates' actors (found by name, so a teammate
    Ray restarted is found again) and reports each delivery before the tool returns."""

    def __init__(self, member: str, peers: dict[str, str], namespace: str | None,
                 timeout_s: float, report: Callable[[AgentEvent], None],
                 next_id: Callable[[], str], mail: HostMail | None = None) -> None:
        self._member = member
        self._peers = peers  # member name -> actor name
        self._namespace = namespace
        self._timeout_s = timeout_s
        self._report = report
        self._next_id = next_id
        self._mail = mail
        self._handles: dict[str, Any] = {}

    def deliver(self, sender: str, recipient: str, content: str, call_id: str = "") -> str:
        """The same checks and answers as the local team's, then actor to actor."""
        check_recipient(sender, recipient, self._peers)
        # with a session: stored before it goes, under an id its sending call keeps
        stored = self._mail.store(recipient, content, call_id) if self._mail else None
        message_id = stored or self._next_id()
        try:
            incarnation = self._receive(recipient, message_id, content, sender,
                                        durable=stored is not None)
        except (GetTimeoutError, FutureTimeout):
            raise ToolFailure(ErrorCode.TIMEOUT, f"{recipient} did not take the message within "
                              f"{self._timeout_s:g} s", suggestion="try again later") from None
        except (RayActorError, ValueError) as exc:  # ValueError: no actor of that name
            self._handles.pop(recipient, None)
            raise ToolFailure(ErrorCode.NOT_AVAILABLE,
                              f"{recipient} is not reachable: its process died or is "
                              f"restarting ({type(exc).__name__})",
                              suggestion="try again later; a restarted teammate does not "
                                         "remember earlier messages") from None
        except RayTaskError as exc:  # the actor is there but its agent has stopped
            raise ToolFailure(ErrorCode.INTERNAL, f"{recipient} is not running: "
                              f"{str(exc).strip().splitlines()[-1]}",
                              recoverable=False) from None
        self._report(Delivered(agent=sender, message_id=message_id, recipient=recipient,
                               content=content, incarnation=incarnation))
        return f"delivered to {recipient}"

    def _receive(self, recipient: str, message_id: str, content: str, sender: str,
                 durable: bool) -> str:
        """The teammate's actor takes the message. A stored message waits (up to the
        timeout) for a teammate Ray is restarting: it takes each stored message once."""
        deadline = time.monotonic() + self._timeout_s
        while True:
            try:
                # .future(): this runs on a tool thread of an asyncio actor (ray.get warns)
                taken: str = self._handle(recipient).receive.remote(
                    message_id, content, sender, message_id if durable else None
                ).future().result(
                        timeout=max(0.0, deadline - time.monotonic()))
                return taken
            except (RayActorError, ValueError):  # dead or restarting; no such actor (yet)
                if not durable or time.monotonic() > deadline:
                    raise
                self._handles.pop(recipient, None)
                time.sleep(_RETRY_S)  # Ray tells no one when the actor is back

    def _handle(self, recipient: str) -> Any:
        handle = self._handles.get(recipient)
        if handle is None:
            handle = self._handles[recipient] = ray.get_actor(self._peers[recipient],
                                                              namespace=self._namespace)
        return handle

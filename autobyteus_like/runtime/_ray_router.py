"""``send_message_to`` inside a Ray host: to a teammate of the same host in the process, to
any other straight to its host's actor."""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

import ray
from ray.exceptions import GetTimeoutError, RayActorError, RayTaskError

from autobyteus_like.errors import AgentStoppedError, ToolFailure
from autobyteus_like.events import AgentEvent
from autobyteus_like.mail._messaging import check_recipient
from autobyteus_like.runtime._ray_records import Delivered
from autobyteus_like.runtime._ray_sessions import HostMail
from autobyteus_like.tools._invocation import ErrorCode
from autobyteus_like.tracing._propagation import carrier_of

__all__ = ["PeerRouter"]


Carrier = dict[str, str] | None
"""A span's W3C trace context (``tracing.propagation``), or None without tracing."""

Take = Callable[[str, str, str, str | None, str | None, Any], str]
"""A host's own intake: (member, message id, content, sender, mail id, the span context of
the sender's call or None) -> the incarnation that took it."""

_RETRY_S = 0.2
"""How often a stored message is offered again to a teammate Ray is restarting."""


class PeerRouter:
    """Delivers its host's members' messages: in the process to a member of the same host,
    else to the teammate's host actor (found by name, so a host Ray restarted is found again);
    reports each delivery before the tool returns."""

    def __init__(self, host: str, peers: dict[str, str], namespace: str | None,
                 timeout_s: float, report: Callable[[AgentEvent], None],
                 next_id: Callable[[], str], take: Take,
                 mails: dict[str, HostMail] | None = None, *,
                 parent_of: Callable[[str, str | None], Any] | None = None) -> None:
        self._host = host  # this host's actor name
        self._peers = peers  # member name -> its host's actor name
        self._namespace = namespace
        self._timeout_s = timeout_s
        self._report = report
        self._next_id = next_id
        self._take = take
        self._mails = mails or {}  # with a session: where each member's mail is stored
        self._handles: dict[str, Any] = {}  # host actor name -> handle
        self._parent_of = parent_of  # with tracing: the span of a member's running call

    def deliver(self, sender: str, recipient: str, content: str, call_id: str = "") -> str:
        """The same checks and answers as the local team's, then to the recipient."""
        check_recipient(sender, recipient, self._peers)
        mail = self._mails.get(sender)  # with a session: stored before it goes, under an id
        mail_id = mail.store(recipient, content, call_id) if mail else None  # the call keeps
        message_id = mail_id or self._next_id()
        parent = (None if self._parent_of is None else  # the receiver's turn: its child
                  self._parent_of(sender, call_id or None))
        if self._peers[recipient] == self._host:
            try:
                incarnation = self._take(recipient, message_id, content, sender, mail_id,
                                         parent)
            except AgentStoppedError as exc:
                raise ToolFailure(ErrorCode.INTERNAL, f"{recipient} is not running: {exc}",
                                  recoverable=False) from None
        else:
            incarnation = self._send_across(recipient, message_id, content, sender, mail_id,
                                            carrier_of(parent))
        self._report(Delivered(agent=sender, message_id=message_id, recipient=recipient,
                               content=content, incarnation=incarnation))
        return f"delivered to {recipient}"

    def _send_across(self, recipient: str, message_id: str, content: str, sender: str,
                     mail_id: str | None, parent: Carrier = None) -> str:
        """To the recipient's host actor; returns the incarnation that took it."""
        host = self._peers[recipient]
        try:
            incarnation = self._receive(host, recipient, message_id, content, sender, mail_id,
                                        parent)
        except (GetTimeoutError, FutureTimeout):
            raise ToolFailure(ErrorCode.TIMEOUT, f"{recipient} did not take the message within "
                              f"{self._timeout_s:g} s", suggestion="try again later") from None
        except (RayActorError, ValueError) as exc:  # ValueError: no actor of that name
            self._handles.pop(host, None)
            raise ToolFailure(ErrorCode.NOT_AVAILABLE,
                              f"{recipient} is not reachable: its process died or is "
                              f"restarting ({type(exc).__name__})",
                              suggestion="try again later; a restarted teammate does not "
                                         "remember earlier messages") from None
        except RayTaskError as exc:  # the actor is there but its agent has stopped
            raise ToolFailure(ErrorCode.INTERNAL, f"{recipient} is not running: "
                              f"{str(exc).strip().splitlines()[-1]}",
                              recoverable=False) from None
        return incarnation

    def _receive(self, host: str, recipient: str, message_id: str, content: str, sender: str,
                 mail_id: str | None, parent: Carrier = None) -> str:
        """The recipient's host takes the message. A stored message waits (up to the
        timeout) for a host Ray is restarting: the host takes each stored message once."""
        deadline = time.monotonic() + self._timeout_s
        while True:
            try:
                # .future(): this runs on a tool thread of an asyncio actor (ray.get warns)
                taken: str = self._handle(host).receive.remote(
                    recipient, message_id, content, sender, mail_id, parent).future().result(
                        timeout=max(0.0, deadline - time.monotonic()))
                return taken
            except (RayActorError, ValueError):  # dead or restarting; no such actor (yet)
                if mail_id is None or time.monotonic() > deadline:
                    raise
                self._handles.pop(host, None)
                time.sleep(_RETRY_S)  # Ray tells no one when the actor is back

    def _handle(self, host: str) -> Any:
        handle = self._handles.get(host)
        if handle is None:
            handle = self._handles[host] = ray.get_actor(host, namespace=self._namespace)
        return handle

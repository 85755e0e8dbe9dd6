"""MemberHost: the Ray actor that hosts one member's ``Agent`` (the same pykka agent code).

The driver keeps one ``poll`` call waiting on each host; it returns everything the member
reported since the last one, in order: its events, the messages it delivered, the turns that
ended. Teammates call ``receive`` directly, actor to actor. Ray restarts a host whose process
died (``max_restarts``) by running ``__init__`` again: a new agent, a new ``incarnation``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import uuid
from concurrent.futures import Future
from typing import Any

from autobyteus_like.agent.agent import Agent
from autobyteus_like.agent.subscription import AsyncEventSubscription, EventPublisher
from autobyteus_like.errors import UsageLimitExceededError
from autobyteus_like.events import AgentEvent, UserMessageReceived
from autobyteus_like.mail.messaging import send_message_tool
from autobyteus_like.runtime import portable
from autobyteus_like.runtime.ray_records import TurnEnded
from autobyteus_like.runtime.ray_router import PeerRouter
from autobyteus_like.runtime.ray_sessions import HostMail, resume_member
from autobyteus_like.runtime.ray_tool import as_ray_task
from autobyteus_like.tools.definition import ToolDefinition
from autobyteus_like.tools.registry import ToolRegistry
from autobyteus_like.usage.report import UsageReport

__all__ = ["MemberHost"]


class MemberHost:
    """One member inside a Ray actor (an asyncio actor: every method runs on its loop, so
    ``poll`` waits without holding up ``receive``, ``approve`` or ``deny``)."""

    def __init__(self, name: str, blob: bytes, peers: dict[str, str], namespace: str | None,
                 delivery_timeout_s: float) -> None:
        config, tools, formats, where = portable.loads(blob)
        self.name = name
        self.incarnation = uuid.uuid4().hex[:12]
        self._stream: AsyncEventSubscription | None = None
        self._streaming = False
        self._restarted = bool(_runtime_context().was_current_actor_reconstructed)
        self._records = EventPublisher()  # this host's own records, into the same stream
        self._ids = itertools.count(1)
        session = None if where is None else where.attach()
        self._mail = HostMail(session, name)
        router = PeerRouter(name, peers, namespace, delivery_timeout_s, self._report,
                            self._next_id, self._mail)
        registry = ToolRegistry([as_ray_task(t) if isinstance(t, ToolDefinition) else t
                                 for t in tools])
        registry.add(send_message_tool(router, name))
        self._agent = Agent(config, tools=registry, formats=formats, session=session)
        self._agent.start()
        self._resumed: list[tuple[str, int, str, str | None]] = []

    def _on_loop(self) -> AsyncEventSubscription:
        """The stream, made on the actor's loop by the first method to run there (Ray calls
        ``__init__`` on another thread), before any message can reach the agent."""
        if self._stream is None:
            self._stream = AsyncEventSubscription(asyncio.get_running_loop())
            self._records.subscribe(self._stream)
            if self._restarted:  # whether the driver listens is unknown: stream, to be safe
                self._streaming = True
                self._agent.events(into=self._stream)
            # what a session's earlier process left unfinished, reported into the stream
            self._resumed = resume_member(self._agent, self._mail, self._restarted,
                                          self._report, self._turn_ended)
        return self._stream

    async def stream_events(self) -> None:
        """From now on, the agent's events go to the driver too (someone there subscribed;
        until then only this host's records cross, and the agent skips building events
        nobody takes)."""
        stream = self._on_loop()
        if not self._streaming:
            self._streaming = True
            self._agent.events(into=stream)

    def _next_id(self) -> str:
        return f"{self.incarnation}:{next(self._ids)}"

    def _report(self, record: AgentEvent) -> None:
        """Add a record to the stream (from any thread; in order with the agent's events)."""
        self._records.publish(record)

    async def ready(self) -> str:
        """This process's incarnation, once the agent runs."""
        self._on_loop()
        return self.incarnation

    async def resumed(self) -> list[tuple[str, int, str, str | None]]:
        """The stored turns this host went on with when it first started (message id, turn
        id, text, sender), told once: the driver owes their replies from now on."""
        resumed, self._resumed = self._resumed, []
        return resumed

    async def pid(self) -> int:
        import os

        return os.getpid()

    async def receive(self, message_id: str, content: str, sender: str | None,
                      mail_id: str | None = None) -> str:
        """Put a message in the agent's mailbox; its turn's end is reported as ``TurnEnded``.
        Returns the incarnation that took it. A stored message (``mail_id``) is taken once
        (a sender's call that runs again offers it again)."""
        self._on_loop()
        if mail_id is not None and not self._mail.take(mail_id):
            return self.incarnation
        reply = self._agent.send(content, sender=sender, mail_id=mail_id)
        reply.add_done_callback(lambda done: self._turn_ended(message_id, done))
        return self.incarnation

    def _turn_ended(self, message_id: str, reply: Future[str]) -> None:
        error = reply.exception()
        if error is None:
            self._report(TurnEnded(agent=self.name, message_id=message_id,
                                   answer=reply.result()))
        else:
            limit = None
            if isinstance(error, UsageLimitExceededError):
                limit = (error.scope, error.limit, str(error.allowed), str(error.figure),
                         str(getattr(error, "detail", "") or ""))
            self._report(TurnEnded(agent=self.name, message_id=message_id,
                                   error=getattr(error, "message", None) or str(error),
                                   limit=limit))

    async def poll(self) -> tuple[str, list[AgentEvent]]:
        """Everything reported since the last poll (waits for at least one item)."""
        stream = self._on_loop()
        first = await stream.next_event()
        batch = [] if first is None else [_portable_event(first)]
        batch += [_portable_event(event) for event in stream.ready()]  # one reply per burst
        return self.incarnation, batch

    async def approve(self, invocation_id: str) -> None:
        self._agent.approve(invocation_id)

    async def deny(self, invocation_id: str, reason: str) -> None:
        self._agent.deny(invocation_id, reason)

    async def llm(self) -> bytes:
        """The member's LLM as it is now (a scripted one records what it was shown)."""
        return portable.dumps(self._agent.config.llm)

    async def usage(self) -> UsageReport:
        """The member's usage, counted here in its own process."""
        return self._agent.usage

    async def shutdown(self) -> None:
        """Stop the agent (its threads) before Ray ends the process."""
        await asyncio.get_running_loop().run_in_executor(None, self._agent.stop)


def _portable_event(event: AgentEvent) -> AgentEvent:
    """The event without what cannot leave this process (a turn's reply future)."""
    if isinstance(event, UserMessageReceived) and event.reply is not None:
        return dataclasses.replace(event, reply=None)
    return event


def _runtime_context() -> Any:
    import ray

    return ray.get_runtime_context()


def host_class(options: dict[str, Any]) -> Any:
    """``MemberHost`` as a Ray actor class (Ray imported only here and by the backend)."""
    import ray

    return ray.remote(**options)(MemberHost)

"""RayBackend: each member in a Ray actor of its own; one driver thread (the pump) collects
what every actor reports and hands it to the team as if the members were local."""

from __future__ import annotations

import threading
import uuid
import warnings
from collections.abc import Sequence
from typing import Any

import ray
from loguru import logger
from ray.exceptions import ActorDiedError, RayActorError

from autobyteus_like.agent.agent import Agent
from autobyteus_like.agent.config import AgentConfig
from autobyteus_like.errors import ConfigError
from autobyteus_like.formats import FormatRegistry
from autobyteus_like.mail.mail_room import MailRoom
from autobyteus_like.mail.messaging import SEND_MESSAGE_TOOL
from autobyteus_like.runtime import portable
from autobyteus_like.runtime.config import MemberResources, RayRuntime
from autobyteus_like.runtime.ray_host import host_class
from autobyteus_like.runtime.ray_member import RemoteMember
from autobyteus_like.runtime.ray_records import Delivered, TurnEnded
from autobyteus_like.runtime.ray_sessions import session_address
from autobyteus_like.runtime.ray_usage import DriverUsage
from autobyteus_like.tools.registry import ToolRegistry, ToolSource

__all__ = ["RayBackend"]

_WAKE_S = 0.2
"""How often the pump looks up from ``ray.wait`` to notice a stop (Ray has no way to wake a
``ray.wait`` from another thread)."""


class RayBackend:
    """Connects to (or starts) Ray, creates the members' actors all at once, pumps their
    reports, and ends the actors with the team (Ray ends them too if this process dies: they
    belong to its job and are never detached)."""

    def __init__(self, runtime: RayRuntime, mail: MailRoom,
                 resources: dict[str, MemberResources]) -> None:
        self.runtime = runtime
        self._mail = mail
        self._resources = resources
        self._members: dict[str, RemoteMember] = {}
        self._blobs: dict[str, bytes] = {}
        self._team_id = f"{mail.name}-{uuid.uuid4().hex[:8]}"
        self._owns_ray = False
        self._pump: threading.Thread | None = None
        self._stopping = threading.Event()
        self._tracked: set[str] = set()  # the messages between members counted in flight

    def member(self, config: AgentConfig, tools: ToolRegistry, sources: Sequence[ToolSource],
               formats: FormatRegistry | None, **options: Any) -> RemoteMember:
        session = options.get("session")
        if session is not None and session.location.startswith(":memory:"):
            raise ConfigError(f"team {self._mail.name!r}", [
                "runtime: members on Ray need a session store they can open themselves"])
        # A member's actor writes its own turns to the session the driver holds (a SQLite
        # file its node can reach, or PostgreSQL for several nodes).
        where = None if session is None else session_address(session)
        if sources:
            raise ConfigError(f"team {self._mail.name!r}", [
                "runtime: the ray backend does not run MCP servers or other tool sources yet; "
                "use backend: local for this team"])
        local = Agent(config, tools=[*tools, _placeholder_send(tools)], formats=formats)
        self._blobs[config.name] = portable.dumps((config, list(tools), formats, where))
        remote = RemoteMember(local, f"{self._team_id}/{config.name}",
                              self.runtime.delivery_timeout_s,
                              DriverUsage(config, options.get("team_usage")))
        remote.durable = session is not None
        self._members[config.name] = remote
        return remote

    # -- life cycle ----------------------------------------------------------------------------

    def start(self) -> None:
        """Join Ray (unless this process already has), then create every member's actor."""
        if not ray.is_initialized():
            address = None if self.runtime.address == "local" else self.runtime.address
            options = {"log_to_driver": False, **self.runtime.init}
            try:
                try:
                    ray.init(address=address, namespace=self.runtime.namespace, **options)
                except ConnectionError:
                    if address != "auto":
                        raise
                    # auto found no running cluster: a one-machine cluster of our own, said
                    warnings.warn("runtime: no running Ray cluster was found (address: auto); "
                                  "started a local one for this run (give address: HOST:PORT "
                                  "to join a cluster)", UserWarning, stacklevel=2)
                    ray.init(address=None, namespace=self.runtime.namespace, **options)
            except (ConnectionError, RuntimeError, ValueError) as exc:
                raise ConfigError(f"team {self._mail.name!r}", [
                    f"runtime.address: cannot connect to Ray at {self.runtime.address!r}: "
                    f"{str(exc).splitlines()[0]}"]) from None
            self._owns_ray = True
        else:
            self._check_same_cluster()
        peers = {name: member.actor_name for name, member in self._members.items()}
        namespace = self.runtime.namespace
        for name, member in self._members.items():
            resources = self._resources.get(name, MemberResources())
            actor = host_class(dict(
                name=member.actor_name, namespace=namespace,
                max_restarts=self.runtime.max_restarts, max_task_retries=0,
                lifetime="non_detached", **resources.ray_options(),
            ))
            member.created(actor.remote(name, self._blobs[name], peers, namespace,
                                        self.runtime.delivery_timeout_s),
                           resources.ray_options(), self.runtime.start_timeout_s)
        self._pump = threading.Thread(target=self._run_pump, name=f"{self._team_id}-pump",
                                      daemon=True)
        self._pump.start()

    def _check_same_cluster(self) -> None:
        """A process joins one Ray cluster: a team naming another one is an error, never
        silently placed on the cluster this process already joined."""
        wanted = self.runtime.address
        if wanted in ("auto", "local") or wanted.startswith("ray://"):
            return
        joined = ray.get_runtime_context().gcs_address
        if joined != wanted:
            raise ConfigError(f"team {self._mail.name!r}", [
                f"runtime.address: this process already joined the Ray cluster at {joined}; "
                f"it cannot also join {wanted}"])

    def stop(self) -> None:
        """After the members stopped: end the pump, and Ray if this team started it."""
        self._stopping.set()
        if self._pump is not None and self._pump is not threading.current_thread():
            self._pump.join(timeout=10)
        if self._owns_ray:
            self._owns_ray = False
            ray.shutdown()

    # -- the pump --------------------------------------------------------------------------------

    def _run_pump(self) -> None:
        polls: dict[Any, RemoteMember] = {}
        for member in self._members.values():
            polls[member.handle.poll.remote()] = member
        while polls and not self._stopping.is_set():
            ready, _ = ray.wait(list(polls), num_returns=1, timeout=_WAKE_S)
            for ref in ready:
                member = polls.pop(ref)
                if not member.running:
                    continue
                try:
                    incarnation, batch = ray.get(ref)
                except ActorDiedError:  # restarts used up, or ended: nothing more comes
                    member.died(for_good=True)
                    continue
                except RayActorError:  # died or unreachable; Ray restarts it
                    member.died()
                    polls[member.handle.poll.remote()] = member
                    continue
                if incarnation != member.incarnation:
                    member.restarted(incarnation)
                self._dispatch(member, batch)
                polls[member.handle.poll.remote()] = member

    def _dispatch(self, member: RemoteMember, batch: list[Any]) -> None:
        for item in batch:
            try:
                if isinstance(item, Delivered):
                    if item.message_id in self._tracked:  # told again after a restart
                        continue
                    self._tracked.add(item.message_id)
                    recipient = self._members[item.recipient]
                    reply = recipient.expect(item.message_id, item.incarnation)
                    self._mail.track(item.recipient, item.agent, item.content, reply)
                elif isinstance(item, TurnEnded):
                    member.turn_ended(item)
                else:
                    member.publish(item)
            except Exception as exc:  # one bad report never stops the team's stream
                logger.opt(exception=exc).error("team {}: cannot handle {!r} from {}",
                                                self._mail.name, item, member.name)


def _placeholder_send(tools: ToolRegistry) -> Any:
    """``send_message_to`` for the driver's copy of a member (prompt and tool checks only;
    the actor has the real one)."""
    from autobyteus_like.mail.messaging import send_message_tool

    class _Nowhere:
        def deliver(self, sender: str, recipient: str, content: str, call_id: str = "") -> str:
            raise RuntimeError("the driver's copy of a member never runs tools")

    del tools
    return send_message_tool(_Nowhere(), SEND_MESSAGE_TOOL)

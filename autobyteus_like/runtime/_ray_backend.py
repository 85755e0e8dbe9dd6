"""RayBackend: the members in Ray actors (hosts), packed ``members_per_worker`` to a host;
one driver thread (the pump) collects what every host reports and hands it to the team as if
the members were local."""

from __future__ import annotations

import threading
import uuid
import warnings
from collections.abc import Sequence
from typing import Any

import ray
from loguru import logger
from ray.exceptions import ActorDiedError, RayActorError

from autobyteus_like.agent._agent import Agent
from autobyteus_like.agent._config import AgentConfig
from autobyteus_like.errors import ConfigError
from autobyteus_like.formats import FormatRegistry
from autobyteus_like.mail._messaging import SEND_MESSAGE_TOOL
from autobyteus_like.mail._room import MailRoom
from autobyteus_like.runtime import _portable as portable
from autobyteus_like.runtime._config import MemberResources, RayRuntime
from autobyteus_like.runtime._member import Member
from autobyteus_like.runtime._ray_host import host_class
from autobyteus_like.runtime._ray_link import HostLink, joined_cluster_note
from autobyteus_like.runtime._ray_member import RayLink
from autobyteus_like.runtime._ray_packing import pack_members
from autobyteus_like.runtime._ray_records import Delivered, RunBegan, TurnEnded
from autobyteus_like.runtime._ray_sessions import session_address
from autobyteus_like.runtime._ray_spans import SpansFinished
from autobyteus_like.runtime._ray_team_budget import open_keeper
from autobyteus_like.runtime._ray_tools_mcp import recipes_for
from autobyteus_like.runtime._ray_usage import DriverUsage
from autobyteus_like.tools._registry import ToolRegistry, ToolSource
from autobyteus_like.usage._report import TeamUsage

__all__ = ["RayBackend"]

_INLINE_BYTES = 100 * 1024
"""Ray's own limit for arguments carried in a call (``max_direct_call_object_size``)."""

_WAKE_S = 0.2
"""How often the pump looks up from ``ray.wait`` to notice a stop (Ray has no way to wake a
``ray.wait`` from another thread)."""


class RayBackend:
    """Connects to (or starts) Ray, packs the members into hosts (``ray_packing``), creates
    every host's actor at once, pumps their reports, and ends the actors with the team (Ray
    ends them too if this process dies: they belong to its job and are never detached)."""

    sources_here = False  # each host starts the servers its members use (ray_tools_mcp.py)

    def __init__(self, runtime: RayRuntime, mail: MailRoom,
                 resources: dict[str, MemberResources]) -> None:
        self.runtime = runtime
        self._mail = mail
        self._resources = resources
        self._members: dict[str, RayLink] = {}
        self._hosted: dict[str, tuple[AgentConfig, list[Any], Any]] = {}
        self._formats: FormatRegistry | None = None
        self._send: Any = None  # the driver copies' send_message_to (one for all)
        self.hosts: list[HostLink] = []
        self._team_id = f"{mail.name}-{uuid.uuid4().hex[:8]}"
        self._owns_ray = False
        self._joined: str | None = None
        """The address of a running cluster ``address: auto`` joined (not started by us)."""
        self._pump: threading.Thread | None = None
        self._stopping = threading.Event()
        self._tracked: set[str] = set()  # the messages between members counted in flight
        self._team_usage: TeamUsage | None = None
        self._keeper: Any = None
        self._tracing: Any = None  # the team's Tracing; its spans: ``_spans`` once started
        self._spans: Any = None

    def member(self, config: AgentConfig, tools: ToolRegistry, sources: Sequence[ToolSource],
               formats: FormatRegistry | None, **options: Any) -> Member:
        session = options.get("session")
        if session is not None and session.location.startswith(":memory:"):
            raise ConfigError(f"team {self._mail.name!r}", [
                "runtime: members on Ray need a session store they can open themselves"])
        # A member's actor writes its own turns to the session the driver holds (a SQLite
        # file its node can reach, or PostgreSQL for several nodes).
        where = None if session is None else session_address(session)
        # the hosts start the MCP servers their members use (ray_tools_mcp.py)
        recipes = recipes_for(self._mail.name, sources, config.tools)
        self._team_usage = options.get("team_usage")
        self._tracing = options.get("tracing")
        if self._send is None:
            self._send = _placeholder_send()
        local = Agent(config, tools=[*tools, *sources, self._send], formats=formats)
        self._formats = formats  # the team's, the same for every member
        self._hosted[config.name] = (config, [*tools, *recipes], where)
        link = RayLink(local, self.runtime.delivery_timeout_s,
                       DriverUsage(config, options.get("team_usage")))
        link.has_session = session is not None
        self._members[config.name] = link
        return Member(config, link, has_session=session is not None)

    # -- life cycle ----------------------------------------------------------------------------

    def start(self) -> None:
        """Join Ray (unless this process already has), then create every member's actor."""
        self._spans = _span_export(self._tracing, self._mail.name)  # None: it traces not
        for member in self._members.values():
            member.traced = self._spans is not None
        if not ray.is_initialized():
            address = None if self.runtime.address == "local" else self.runtime.address
            options = {"log_to_driver": False, **self.runtime.init}
            try:
                try:
                    ray.init(address=address, namespace=self.runtime.namespace, **options)
                    if address == "auto":  # someone else's cluster: said, and kept to explain
                        self._joined = ray.get_runtime_context().gcs_address
                        warnings.warn(
                            f"runtime: joined the running Ray cluster at {self._joined} "
                            "(address: auto); it was not started by this run",
                            UserWarning, stacklevel=2)
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
        self._keeper, budget = open_keeper(f"{self._team_id}/budget", self.runtime.namespace,
                                           self._team_usage)  # the team's limits, if any
        if budget is not None:
            for _, tools, _ in self._hosted.values():
                tools.append(budget)
        self._create_hosts()
        self._await_hosts()
        self._pump = threading.Thread(target=self._run_pump, name=f"{self._team_id}-pump",
                                      daemon=True)
        self._pump.start()

    def _create_hosts(self) -> None:
        """Pack the members into hosts and create every host's actor (Ray starts them all at
        once; each member's ``start`` waits for its host). A host's config is pickled once:
        its members' configs, their tools and the formats, shared objects once; a large one is
        put in Ray's object store and kept by the driver for the team's life (a restart reads
        it again)."""
        resources: Any = ray.cluster_resources  # untyped in Ray's stubs
        cpus = (float(resources().get("CPU", 1))
                if self.runtime.members_per_worker == "auto" else 1.0)
        plans = pack_members(list(self._members), self._resources,
                             self.runtime.members_per_worker, cpus)
        for index, plan in enumerate(plans):
            name = (f"{self._team_id}/{plan.members[0]}" if len(plan.members) == 1 else
                    f"{self._team_id}/host-{index}")
            link = HostLink(name, plan.members, plan.needs, self.runtime.start_timeout_s,
                            needs_own=not plan.packed)
            link.spans_back = None if self._spans is None else self._spans.export
            if self._joined is not None:
                link.cluster_note = joined_cluster_note(self._joined)
            self.hosts.append(link)
            for member in plan.members:
                self._members[member].placed(link)
        peers = {name: member.actor_name for name, member in self._members.items()}
        namespace = self.runtime.namespace
        shipping = None if self._spans is None else self._spans.shipping
        for plan, link in zip(plans, self.hosts, strict=True):
            options = dict(name=link.actor_name, namespace=namespace,
                           max_restarts=self.runtime.max_restarts, max_task_retries=0,
                           lifetime="non_detached", **plan.needs)
            if plan.packed:  # no resources to place it by: over every node
                options["scheduling_strategy"] = "SPREAD"
            blob = portable.dumps((self._formats, [self._hosted[m] for m in plan.members]))
            # a small one travels in the actor's creation call; a large one once, by reference
            link.config = blob if len(blob) < _INLINE_BYTES else ray.put(blob)
            link.created(host_class(options).remote(link.actor_name, [link.config], peers,
                                                    namespace, self.runtime.delivery_timeout_s,
                                                    shipping))

    def _await_hosts(self) -> None:
        """Wait for every host at once (``start_timeout_s`` in all). Those still not running
        then: a host asking for resources of its own is named first (the cluster may lack
        them), before a packed one (which asks for nothing, so it is merely slow)."""
        waiting = {host.starting: host for host in self.hosts}
        _, late = ray.wait(list(waiting), num_returns=len(waiting),
                           timeout=self.runtime.start_timeout_s)
        if late:
            culprit = min((waiting[ref] for ref in late), key=lambda host: not host.needs_own)
            culprit.wait_ready(culprit.members[0], timeout_s=0)

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

    def new_run(self) -> None:
        """A new run of the team in place (before its members'): the team's limits, kept
        by its keeper, count from zero again."""
        if self._keeper is not None:
            ray.get(self._keeper.new_run.remote(), timeout=self.runtime.delivery_timeout_s)

    def stop(self) -> None:
        """After the members stopped: end the pump, and Ray if this team started it."""
        self._stopping.set()
        if self._pump is not None and self._pump is not threading.current_thread():
            self._pump.join(timeout=10)
        for host in self.hosts:  # normally ended already, with their last member
            host.end()
        if self._keeper is not None:
            ray.kill(self._keeper, no_restart=True)
            self._keeper = None
        if self._owns_ray:
            self._owns_ray = False
            ray.shutdown()

    # -- the pump --------------------------------------------------------------------------------

    def _run_pump(self) -> None:
        polls: dict[Any, HostLink] = {host.handle.poll.remote(): host for host in self.hosts}
        while polls and not self._stopping.is_set():
            ready, _ = ray.wait(list(polls), num_returns=1, timeout=_WAKE_S)
            for ref in ready:
                host = polls.pop(ref)
                members = [self._members[name] for name in host.members]
                if not any(member.running for member in members):
                    continue
                try:
                    incarnation, batch = ray.get(ref)
                except ActorDiedError:  # restarts used up, or ended: nothing more comes
                    for member in members:
                        member.died(for_good=True)
                    continue
                except RayActorError:  # died or unreachable; Ray restarts it
                    for member in members:
                        member.died()
                    polls[host.handle.poll.remote()] = host
                    continue
                if incarnation != host.incarnation:
                    host.restarted(incarnation)
                    for member in members:
                        member.restarted(incarnation)
                self._dispatch(batch)
                polls[host.handle.poll.remote()] = host

    def _dispatch(self, batch: list[Any]) -> None:
        for item in batch:
            try:
                if isinstance(item, SpansFinished):  # first in a reply, if any
                    self._spans.export(item)
                    continue
                member = self._members[item.agent]
                if isinstance(item, Delivered):
                    if item.message_id in self._tracked:  # told again after a restart
                        continue
                    self._tracked.add(item.message_id)
                    recipient = self._members[item.recipient]
                    reply = recipient.expect(item.message_id, item.incarnation)
                    self._mail.track(item.recipient, item.agent, item.content, reply)
                elif isinstance(item, TurnEnded):
                    member.turn_ended(item)
                elif isinstance(item, RunBegan):
                    member.run_began(item.run)
                else:
                    member.publish(item)
            except Exception as exc:  # one bad report never stops the team's stream
                logger.opt(exception=exc).error("team {}: cannot handle {!r}",
                                                self._mail.name, item)


def _span_export(tracing: Any, team: str) -> Any:
    """The driver's end of the members' spans, when the team traces (the SDK only then)."""
    from autobyteus_like.tracing._settings import Tracing

    settings = tracing or Tracing()
    if settings.tracer() is None:
        return None
    from autobyteus_like.runtime._ray_span_export import driver_spans

    return driver_spans(settings, team)


def _placeholder_send() -> Any:
    """``send_message_to`` for the driver's copy of a member (prompt and tool checks only;
    the actor has the real one)."""
    from autobyteus_like.mail._messaging import send_message_tool

    class _Nowhere:
        def deliver(self, sender: str, recipient: str, content: str, call_id: str = "") -> str:
            raise RuntimeError("the driver's copy of a member never runs tools")

    return send_message_tool(_Nowhere(), SEND_MESSAGE_TOOL)

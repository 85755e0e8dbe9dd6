"""HostLink: the driver's side of one Ray host, shared by the ``RayLink``s of the members it
hosts: its actor handle, whether it started, whether it streams events, and its end once every
member it hosts has stopped."""

from __future__ import annotations

import contextlib
import re
import threading
from typing import Any

import ray
from ray.exceptions import GetTimeoutError, RayActorError, RayTaskError

from autobyteus_like.errors import ConfigError
from autobyteus_like.runtime._ray_placement import host_pid, late_start_reason

__all__ = ["HostLink", "joined_cluster_note"]

_MEMBER_FAILED = re.compile(r"^(?:[\w.]+\.)?MemberStartFailed: member '(.+?)': (.*)$")
"""The last line Ray reports of a host whose member could not start (ray_host.py)."""


def joined_cluster_note(address: str) -> str:
    """The likely cause of a host that did not start on a cluster ``address: auto`` joined."""
    return (f"this run joined a running Ray cluster it did not start (at {address}, by "
            "address: auto): its workers may run another Python or lack this autobyteus_like; "
            "start one for the run with address: local, or name the cluster meant with "
            "address: HOST:PORT")


class HostLink:
    """One host as the driver sees it. ``members`` are the names it hosts, ``needs`` what it
    asks of a node (said when Ray cannot place it)."""

    def __init__(self, actor_name: str, members: tuple[str, ...], needs: dict[str, Any],
                 start_timeout_s: float, *, needs_own: bool = False) -> None:
        self.actor_name = actor_name
        self.members = members
        self.needs = needs
        self.needs_own = needs_own
        """Whether it asks for resources of its own (else packed: it asks nothing)."""
        self.handle: Any = None
        self.config: Any = None
        """The host's config in Ray's object store (kept here: a restart reads it again)."""
        self.incarnation = ""
        self._start_timeout_s = start_timeout_s
        self._ready: Any = None
        self.starting: Any = None
        """The call that answers once the host runs (the backend waits for every host's)."""
        self._streaming = False
        self._stops: dict[str, Any] = {}  # member -> its stop_member call
        self._ended = False
        self.spans_back: Any = None
        """With tracing: where the spans the members' stops answer go (the driver's export)."""
        self.cluster_note = ""
        """The likely cause said when the host does not start (``joined_cluster_note``)."""
        self._lock = threading.Lock()
        self._starting = threading.Lock()

    def created(self, handle: Any) -> None:
        """The backend created the actor; ``wait_ready`` waits for it."""
        self.handle = handle
        self._ready = self.starting = handle.ready.remote()
        if self._streaming:  # a member was subscribed to before the actor existed
            handle.stream_events.remote()

    def wait_ready(self, member: str, timeout_s: float | None = None) -> str:
        """The host's incarnation once every member in it runs (``member``: who asks, named
        in the error when Ray cannot place the host or its ``__init__`` failed)."""
        with self._starting:
            if self.incarnation:
                return self.incarnation
            try:
                self.incarnation = ray.get(self._ready, timeout=self._start_timeout_s
                                           if timeout_s is None else timeout_s)
            except GetTimeoutError:
                raise ConfigError(f"member {member!r}", [late_start_reason(
                    self.needs, host_pid(self.handle), _cluster("cluster_resources"),
                    _cluster("available_resources"), self._start_timeout_s)
                    + self._likely_cause()]) from None
            except RayActorError as exc:  # its __init__ raised (an LLM without its key, ...)
                cause = str(exc).strip().splitlines()
                last = cause[-1] if cause else type(exc).__name__
                failed = _MEMBER_FAILED.match(last)
                if failed:  # one of its members could not start: named, with the reason
                    raise ConfigError(f"member {failed[1]!r}", [failed[2]]) from None
                raise ConfigError(f"member {member!r}", [
                    f"its actor could not start: {last}{self._likely_cause()}"]) from None
            return self.incarnation

    def _likely_cause(self) -> str:
        return f"; {self.cluster_note}" if self.cluster_note else ""

    def stream(self, timeout_s: float) -> None:
        """Every member's events to the driver from now on (asked once per host)."""
        with self._lock:
            if self._streaming:
                return
            self._streaming = True
        if self.handle is not None and not self._ended:
            with contextlib.suppress(RayActorError, RayTaskError, GetTimeoutError):
                ray.get(self.handle.stream_events.remote(), timeout=timeout_s)

    def restarted(self, incarnation: str) -> None:
        """Ray restarted the host: a new process, which streams events if the last did."""
        self.incarnation = incarnation
        if self._streaming:
            self.handle.stream_events.remote()

    def stop_member(self, member: str, timeout: float) -> None:
        """Stop one member's agent; once every member of the host was stopped, wait for those
        stops (``timeout``) and end the actor (no restart)."""
        with self._lock:
            if self._ended or self.handle is None:
                return
            # a host that never started has no agent to stop: nothing to wait for
            self._stops[member] = (self.handle.stop_member.remote(member) if self._started()
                                   else None)
            if len(self._stops) < len(self.members):
                return
            stops = [stop for stop in self._stops.values() if stop is not None]
        with contextlib.suppress(RayActorError, RayTaskError, GetTimeoutError):
            stopped = ray.get(stops, timeout=timeout)  # gone already, or stuck: ended below
            for spans in stopped if self.spans_back is not None else ():
                if spans is not None:  # the spans a stop cut short
                    self.spans_back(spans)
        self.end()

    def _started(self) -> bool:
        """Whether the host's process ever finished starting (else a call to it would wait
        for a start that may never come)."""
        if self.incarnation:
            return True
        done, _ = ray.wait([self.starting], timeout=0)
        return bool(done)

    def end(self) -> None:
        """End the actor at once, without a restart (the team stops, or never started)."""
        with self._lock:
            if self._ended or self.handle is None:
                return
            self._ended = True
        ray.kill(self.handle, no_restart=True)


def _cluster(what: str) -> dict[str, float]:
    """Ray's ``cluster_resources()`` or ``available_resources()`` (untyped in its stubs)."""
    figures: dict[str, float] = getattr(ray, what)()
    return figures

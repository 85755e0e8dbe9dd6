"""A member's running conversation asked as a tool on Ray (``ask_conversation: running``): a
caller in any host reaches the callee's host (in the process when it is the same one, else
straight to its actor, found by name as mail is), the request queues on the callee like any
message, and the answer (or why there is none) comes back as the caller's result. The calls in
flight leading to the callee travel with the call and are held by the callee's host while it
runs, so a loop through running conversations across hosts is refused there
(``team/_call_graph.py``), never a deadlock.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import Future
from typing import Any

import ray

from autobyteus_like.agent._agent import Agent
from autobyteus_like.errors import AgentStoppedError, AgentTurnError, UsageLimitExceededError
from autobyteus_like.tracing._propagation import carrier_of

__all__ = ["Outcome", "RunningAsks", "outcome"]

Edges = list[tuple[str, str]]

Outcome = tuple[str | None, str | None, tuple[Any, ...] | None, bool]
"""A turn's end as data (Ray cannot rebuild every error): the answer, or the error's text, a
crossed limit's figures, and whether the member had stopped."""


class RunningAsks:
    """One host's end of calls to running conversations: the callers' here, and the
    callees' here (``take``)."""

    def __init__(self, host: str, peers: dict[str, str], namespace: str | None,
                 agents: dict[str, Agent]) -> None:
        self._host = host
        self._peers = peers  # member name -> its host's actor name
        self._namespace = namespace
        self._agents = agents
        self._calls: Any = None  # team/_member_tools.py's MemberCalls (a layer above)
        self._handles: dict[str, Any] = {}

    def add_calls(self, calls: Any) -> None:
        """The team's ``MemberCalls`` as it arrived in this host (one per host: the host's
        config is one pickle, so every caller's ``ask_*`` tool shares it)."""
        self._calls = calls

    def instance(self, address: str) -> Agent | None:
        """The fresh instance of that address running in this host now."""
        found: Agent | None = None if self._calls is None else self._calls.instance(address)
        return found

    def spent_by(self, member: str) -> dict[str, Any]:
        """The usage of the fresh instances ``member``'s calls ran here, by callee."""
        return {} if self._calls is None else dict(self._calls.spent_by(member))

    def ask(self, callee: str, request: str, caller: str, parent: object | None,
            edges: Edges) -> Future[Any]:
        """A caller's call here (``AskRunning``): the callee's answer."""
        host = self._peers.get(callee, "")
        if host == self._host:
            return self.take(callee, request, caller, parent, edges)
        reply: Future[Any] = Future()
        try:
            if host not in self._handles:
                self._handles[host] = ray.get_actor(host, namespace=self._namespace)
            ref = self._handles[host].answer.remote(callee, request, caller,
                                                    carrier_of(parent), edges)
        except Exception as exc:  # no such actor (ValueError), or Ray refused the call
            self._handles.pop(host, None)
            reply.set_exception(AgentStoppedError(
                f"agent {callee!r} is not reachable: {type(exc).__name__}"))
            return reply
        ref.future().add_done_callback(lambda done: _settle(reply, callee, done))
        return reply

    def take(self, callee: str, request: str, caller: str, parent: object | None,
             edges: Edges) -> Future[Any]:
        """Queue the request on ``callee``, a member of this host, holding ``edges`` while it
        runs; its reply."""
        graph = None if self._calls is None else self._calls.graph
        if graph is not None:
            graph.carry(edges)
        try:
            reply: Future[Any] = self._agents[callee].deliver(request, sender=caller,
                                                              trace_parent=parent)
        except BaseException as exc:  # stopped: a failed reply, as any
            reply = Future()
            reply.set_exception(exc)
        if graph is not None:
            reply.add_done_callback(lambda _: graph.drop(edges))
        return reply


async def outcome(reply: Future[Any]) -> Outcome:
    """How ``reply`` ended, as data."""
    try:
        return await asyncio.wrap_future(reply), None, None, False
    except UsageLimitExceededError as exc:
        return None, str(exc), (exc.scope, exc.limit, exc.allowed, exc.figure, exc.detail,
                                   exc.refused), False
    except AgentStoppedError as exc:
        return None, str(exc), None, True
    except Exception as exc:
        return None, getattr(exc, "message", None) or str(exc), None, False


def _settle(reply: Future[Any], callee: str, done: Future[Any]) -> None:
    """The caller's reply from the callee's host's ``Outcome`` (or its failure)."""
    error = done.exception()
    if error is not None:  # the host died, or could not run ``answer``
        reply.set_exception(AgentStoppedError(
            f"agent {callee!r}: its host could not answer ({type(error).__name__})"))
        return
    answer, message, limit, stopped = done.result()
    if limit is not None:
        scope, name, allowed, figure, detail, refused = limit
        reply.set_exception(UsageLimitExceededError(scope, name, allowed, figure,
                                                    detail=detail, refused=refused))
    elif stopped:
        reply.set_exception(AgentStoppedError(message or f"agent {callee!r} stopped"))
    elif message is not None:
        reply.set_exception(AgentTurnError(callee, message))
    else:
        reply.set_result(answer)

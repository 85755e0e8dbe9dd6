"""A Ray team's limits (``limits:`` of the team), kept exactly across hosts, with few round trips.

Locally every member claims each LLM request and tool call from the team's ``RunBudget``
under its lock, so two members never both take the team's last call. On Ray the members live
in other processes, so the team's budget lives in one small Ray actor of the team's job
(``TeamBudgetKeeper``, created by the driver when the team has limits), and each host's
members share one ``KeptRunBudget`` (their team's run budget in that process):

- **Calls, granted in blocks.** For a call limit (``max_llm_calls``, ``max_tool_calls``) the
  keeper grants a host several calls at a time (at most ``BLOCK``, and at most half of what is
  left shared among the hosts), which the host's members claim in the process, without a
  round trip. The keeper never grants more than the limit in all, so a limit of N never lets
  N+1 calls run. When nothing is left to grant it takes back what the hosts hold unused
  (``recall``) before it refuses, so all N are claimed, whichever host asks last; near the
  end it grants one call at a time.
- **Tokens and cost**, known only once a response arrives, are added at the keeper as each
  response arrives (one round trip per LLM response, only for a team with a token or cost
  limit): the response that crosses the limit ends the run there.
- **The end of the run** (a limit crossed, or a call refused) is told by the keeper to every
  host before it answers; a host refuses every claim from then on, and tells its members.

A host whose process died and was restarted by Ray loses what it held unused: counted as used
(the limit still holds; the team may end a few calls short of it). The driver counts usage
from the streamed events (``ray_usage.py``) for ``team.usage``.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from autobyteus_like.errors import UsageLimitExceededError
from autobyteus_like.hooks._protocol import CallKind
from autobyteus_like.usage._budget import RunBudget
from autobyteus_like.usage._limits import UsageLimits
from autobyteus_like.usage._report import TeamUsage

__all__ = ["KeptRunBudget", "TeamBudgetAddress", "TeamBudgetKeeper", "keeper_asks",
           "open_keeper", "take_address"]

Crossing = tuple[str, str, Any, Any, bool]
"""A ``UsageLimitExceededError`` as data (Ray cannot rebuild the exception itself)."""

BLOCK = 32
"""The most calls of one kind a host is granted at a time."""

_KINDS: tuple[CallKind, ...] = ("llm_calls", "tool_calls")
_TIMEOUT_S = 30.0
_HOST_TIMEOUT_S = 10.0
"""How long the keeper waits for a host's answer (a host Ray is restarting answers late; what
it held is then counted as used)."""


def _as_data(error: UsageLimitExceededError | None) -> Crossing | None:
    if error is None:
        return None
    return (error.scope, error.limit, error.allowed, error.figure, error.refused)


def _as_error(data: Crossing) -> UsageLimitExceededError:
    scope, limit, allowed, figure, refused = data
    return UsageLimitExceededError(scope, limit, allowed, figure, refused=refused)


class TeamBudgetKeeper:
    """The team's run budget, in a Ray actor every host reaches by name: the calls granted to
    the hosts, the tokens and cost of every response, and the run's end."""

    def __init__(self, team: str, limits: UsageLimits) -> None:
        self._limits, self._scope = limits, f"team {team!r}"
        self._budget = RunBudget(limits, self._scope)
        self._granted: dict[str, int] = dict.fromkeys(_KINDS, 0)
        """Calls granted to hosts, less those given back (used, or held unused)."""
        self._hosts: dict[str, Any] = {}  # host actor name -> its handle
        self._holding: set[str] = set()  # hosts granted calls since they last gave back

    def new_run(self) -> None:
        """A new run of the team (in place, before its members'): its limits count from zero
        again, and every host drops what it held of the run before and claims afresh (told
        before this answers)."""
        import ray

        self._budget = RunBudget(self._limits, self._scope)
        self._granted = dict.fromkeys(_KINDS, 0)
        self._holding.clear()
        told = [handle.team_budget.remote("renew") for handle in self._hosts.values()]
        ray.wait(told, num_returns=len(told), timeout=_HOST_TIMEOUT_S)

    def join(self, host: str, handle: Any) -> None:
        """A host started (or Ray restarted it: what its dead process held is counted as
        used). A run already ended is told to it at once."""
        self._hosts[host] = handle
        self._holding.discard(host)
        if self._budget.error is not None:
            handle.team_budget.remote("end", _as_data(self._budget.error))

    def claim(self, host: str, kind: CallKind) -> tuple[int, Crossing | None]:
        """Calls of ``kind`` granted to ``host`` (at least one), or the crossing refusing it
        (none left in the team, even after taking back what the hosts hold unused)."""
        if self._budget.error is not None:
            return 0, _as_data(self._budget.error)
        allowed: int | None = getattr(self._limits, f"max_{kind}")
        if allowed is None:
            return BLOCK, None  # not limited (hosts do not ask)
        if allowed - self._granted[kind] <= 0:
            self._recall()
        free = allowed - self._granted[kind]
        if free <= 0:
            return 0, (self._budget.scope, f"max_{kind}", allowed, allowed + 1, True)
        grant = max(1, min(BLOCK, free // (2 * max(1, len(self._hosts)))))
        self._granted[kind] += grant
        self._holding.add(host)
        return grant, None

    def _recall(self) -> None:
        """Take back what the hosts hold unused (they answer on their event loops, at once:
        nothing there waits for the keeper)."""
        import ray

        asked = {self._hosts[host].team_budget.remote("recall"): host
                 for host in self._holding if host in self._hosts}
        ready, _ = ray.wait(list(asked), num_returns=len(asked), timeout=_HOST_TIMEOUT_S)
        for ref in ready:
            try:
                unused: dict[str, int] = ray.get(ref)
            except Exception:  # its process died: what it held is counted as used
                continue
            self._holding.discard(asked[ref])
            for kind, count in unused.items():
                self._granted[kind] -= count

    def add_response(self, input_tokens: int, output_tokens: int, cached: int, reasoning: int,
                     cost: Decimal | None, model: str, reported: bool) -> Crossing | None:
        """Add a response's usage; the crossing that ends the run, if one does now (every
        host is told before this answers)."""
        self._budget.add_response(input_tokens, output_tokens, cached, reasoning, cost, model,
                                  reported)
        was = self._budget.error
        error = self._budget.check()
        if error is not None and was is None:
            self._tell_hosts(error)
        return _as_data(error)

    def end(self, crossing: Crossing) -> None:
        """A host's member ended the run: every host is told before this answers."""
        if self._budget.error is None:
            error = _as_error(crossing)
            self._budget.end(error)
            self._tell_hosts(error)

    def _tell_hosts(self, error: UsageLimitExceededError) -> None:
        import ray

        told = [handle.team_budget.remote("end", _as_data(error))
                for handle in self._hosts.values()]
        ray.wait(told, num_returns=len(told), timeout=_HOST_TIMEOUT_S)

    def granted(self) -> dict[str, int]:
        """Calls granted so far, less those given back (for checks)."""
        return dict(self._granted)


@dataclass(frozen=True, slots=True)
class TeamBudgetAddress:
    """Where a host finds its team's keeper (travels in a member's tools; ``take_address``)."""

    actor_name: str
    namespace: str | None
    team: str
    limits: UsageLimits

    def team_usage(self, host: str) -> TeamUsage:
        """The ``TeamUsage`` the members of host ``host`` (this process) share: its run
        budget claims from the keeper, which it joins."""
        import ray

        usage = TeamUsage(self.team, self.limits)
        keeper = ray.get_actor(self.actor_name, namespace=self.namespace)
        usage.run = KeptRunBudget(self.limits, f"team {self.team!r}", keeper, host)
        keeper.join.remote(host, ray.get_runtime_context().current_actor)
        return usage


def take_address(tools: Iterable[Any]) -> tuple[list[Any], TeamBudgetAddress | None]:
    """A host member's tools without the keeper's address, and the address (if any)."""
    rest: list[Any] = []
    address = None
    for tool in tools:
        if isinstance(tool, TeamBudgetAddress):
            address = tool
        else:
            rest.append(tool)
    return rest, address


def open_keeper(actor_name: str, namespace: str | None, usage: TeamUsage | None
                ) -> tuple[Any, TeamBudgetAddress | None]:
    """The keeper of a team with limits (its handle, to end with the team, and its address),
    or (None, None) for a team without."""
    if usage is None or usage.limits is None:
        return None, None
    import ray

    remote: Any = ray.remote  # untyped in Ray's stubs for a class
    keeper = remote(num_cpus=0, max_restarts=0, lifetime="non_detached")(
        TeamBudgetKeeper).options(name=actor_name, namespace=namespace).remote(
            usage.name, usage.limits)
    return keeper, TeamBudgetAddress(actor_name, namespace, usage.name, usage.limits)


def keeper_asks(usage: TeamUsage | None, verb: str, *args: Any) -> dict[str, int]:
    """A host's answer to its keeper (``MemberHost.team_budget``, on the host's loop, so it
    never waits): ``recall`` gives back its unused calls, ``end`` ends the run here, ``renew``
    begins a new run (what was held of the run before is dropped: the keeper forgot it)."""
    run = usage.run if usage is not None else None
    if not isinstance(run, KeptRunBudget):
        return {}
    if verb == "recall":
        return run.give_back()
    if verb == "renew":
        assert usage is not None
        usage.run = run.renewed()
        return {}
    run.ended_elsewhere(_as_error(args[0]))
    return {}


class KeptRunBudget(RunBudget):
    """A team's run budget whose figures and limits are kept by the team's keeper actor;
    this host's members claim from the calls it was granted, and ask for more there."""

    def __init__(self, limits: UsageLimits, scope: str, keeper: Any, host: str) -> None:
        super().__init__(limits, scope)
        self._kept = limits
        self._keeper = keeper
        self._host = host
        self._limited = {kind: getattr(limits, f"max_{kind}") is not None for kind in _KINDS}
        self._left: dict[str, int] = dict.fromkeys(_KINDS, 0)
        """Calls granted here and not yet claimed (under ``_allowance``)."""
        self._allowance = threading.Lock()

    def renewed(self) -> KeptRunBudget:
        """A fresh budget for the team's next run, claiming from the same keeper."""
        return KeptRunBudget(self._kept, self.scope, self._keeper, self._host)

    def _ask(self, call: Any) -> Any:
        # .future(): members' threads run inside an asyncio actor, where ray.get warns
        return call.future().result(timeout=_TIMEOUT_S)

    def claim(self, kind: CallKind) -> UsageLimitExceededError | None:
        if self._error is not None:
            return self._error
        if self._limited[kind] and not self._take(kind):
            # never while holding _allowance: the keeper may ask this host's loop for it
            granted, crossing = self._ask(self._keeper.claim.remote(self._host, kind))
            if crossing is not None:
                error = _as_error(crossing)
                if not error.refused:  # the run ended before (a teammate): so here too
                    self.ended_elsewhere(error)  # (this thread holds its member's lock)
                return error
            if granted > 1:
                with self._allowance:
                    self._left[kind] += granted - 1
        self.add_calls(*((1, 0) if kind == "llm_calls" else (0, 1)))  # this process's part
        return None

    def release(self, kind: CallKind) -> None:
        """A call claimed here is not made after all: it goes back to what this host holds
        (the keeper still counts it as granted; a recall takes it back), and out of this
        process's part."""
        if self._limited[kind]:
            with self._allowance:
                self._left[kind] += 1
        self.add_calls(*((-1, 0) if kind == "llm_calls" else (0, -1)))

    def _take(self, kind: CallKind) -> bool:
        with self._allowance:
            if self._left[kind] > 0:
                self._left[kind] -= 1
                return True
            return False

    def give_back(self) -> dict[str, int]:
        """The calls granted here and not claimed, given back to the keeper."""
        with self._allowance:
            unused, self._left = self._left, dict.fromkeys(_KINDS, 0)
        return unused

    def add_response(self, input_tokens: int, output_tokens: int, cached: int, reasoning: int,
                     cost: Decimal | None, model: str, reported: bool = True) -> None:
        super().add_response(input_tokens, output_tokens, cached, reasoning, cost, model,
                             reported)
        if self.limits is None or not self.limits.counts_tokens:
            return  # no limit needs it: the driver counts usage from the events
        crossing = self._ask(self._keeper.add_response.remote(
            input_tokens, output_tokens, cached, reasoning, cost, model, reported))
        if crossing is not None:
            super().end(_as_error(crossing))

    def check(self) -> UsageLimitExceededError | None:
        """As the keeper said (at a claim or response, or when it told every host)."""
        return self._error

    def ended_elsewhere(self, error: UsageLimitExceededError) -> None:
        """The keeper says the run ended (a teammate's crossing): every claim here is refused
        from now on; the members hear of it on a thread of their own (a member's thread may
        hold its budget's lock while it waits for the keeper, which waits for this answer)."""
        with self._lock:
            if self._error is not None:
                return
            self._error = error
        threading.Thread(target=self._tell_members, args=(error,), daemon=True,
                         name="team-run-ended").start()

    def _tell_members(self, error: UsageLimitExceededError) -> None:
        """What ``RunBudget.end`` does once the error is set: its listeners and members."""
        with self._lock:
            listeners, children = list(self._listeners), list(self._children)
        for listener in listeners:
            listener(error)
        for child in children:
            child.end(error)

    def end(self, error: UsageLimitExceededError) -> None:
        """A member here ended the run: the keeper tells every host before this returns."""
        first = self._error is None
        super().end(error)
        if first:
            try:
                self._ask(self._keeper.end.remote(_as_data(error)))
            except Exception:  # the keeper is gone (the team is stopping): no one to tell
                return

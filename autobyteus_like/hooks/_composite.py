"""Running several hooks as one: each point calls, in order, only the hooks that implement it.

The composite is built once per agent; a point nobody implements costs one call of a no-op, and
a point one hook implements is that hook's own method (no loop), so the turn pays only for what
watches it. A request or call is admitted when every hook that claims admits it (the first
refusal wins, and the hooks before it that admitted it release it again); it may start while
its response streams when every hook that says so agrees. The wrap points are not composed
here: the turn's services chain the hooks that wrap (``hooks._wrapping``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from autobyteus_like.hooks._protocol import AgentHooks, overrides

if TYPE_CHECKING:
    from autobyteus_like.errors import UsageLimitExceededError
    from autobyteus_like.hooks._protocol import CallKind, CallView, TurnView

__all__ = ["CompositeHooks", "compose"]

_DECISIONS = ("verdict", "claim", "release", "admit_early")
_POINTS = tuple(name for name, value in vars(AgentHooks).items()
                if callable(value) and not name.startswith("_")
                and name not in _DECISIONS and not name.startswith("wrap_"))


def _chain(methods: Sequence[Callable[..., None]]) -> Callable[..., None]:
    def every(*args: Any) -> None:
        for method in methods:
            method(*args)
    return every


class CompositeHooks(AgentHooks):
    """Several hooks as one, in the order given (the session writer first, so a step is stored
    before anything else sees it)."""

    def __init__(self, hooks: Sequence[AgentHooks]) -> None:
        self.hooks = tuple(hooks)
        for name in _POINTS:
            methods = [getattr(hook, name) for hook in self.hooks if overrides(hook, name)]
            if len(methods) == 1:
                setattr(self, name, methods[0])
            elif methods:
                setattr(self, name, _chain(methods))
        self._judges = [hook.verdict for hook in self.hooks if overrides(hook, "verdict")]
        if len(self._judges) == 1:
            self.verdict = self._judges[0]  # type: ignore[method-assign]
        self._claimers = [hook for hook in self.hooks if overrides(hook, "claim")]
        if len(self._claimers) == 1:
            self.claim = self._claimers[0].claim  # type: ignore[method-assign]
            self.release = self._claimers[0].release  # type: ignore[method-assign]
        self._early = [hook.admit_early for hook in self.hooks if overrides(hook, "admit_early")]
        if len(self._early) == 1:
            self.admit_early = self._early[0]  # type: ignore[method-assign]

    def claim(self, turn: TurnView, kind: CallKind) -> UsageLimitExceededError | None:
        """The first refusal wins: hooks after it are not asked, and those before it that
        admitted it release it (so none counts what is never made); likewise when one
        raises."""
        admitted: list[AgentHooks] = []
        try:
            for claimer in self._claimers:
                error = claimer.claim(turn, kind)
                if error is not None:
                    _release(admitted, turn, kind)
                    return error
                admitted.append(claimer)
        except BaseException:
            _release(admitted, turn, kind)
            raise
        return None

    def release(self, turn: TurnView, kind: CallKind) -> None:
        """Every hook that admitted it gives it back."""
        _release(self._claimers, turn, kind)

    def admit_early(self, turn: TurnView, call: CallView) -> bool:
        """Early only when every hook that says so agrees."""
        return all(early(turn, call) for early in self._early)

    def verdict(self) -> UsageLimitExceededError | None:
        for judge in self._judges:
            error = judge()
            if error is not None:
                return error
        return None


def _release(hooks: Sequence[AgentHooks], turn: TurnView, kind: CallKind) -> None:
    """Each of ``hooks`` releases (innermost first); one that raises does not keep the others
    from it (the first failure is raised once all were asked)."""
    failure: BaseException | None = None
    for hook in reversed(hooks):
        try:
            hook.release(turn, kind)
        except Exception as exc:
            failure = failure or exc
    if failure is not None:
        raise failure


def compose(hooks: Sequence[AgentHooks | None]) -> AgentHooks:
    """One hooks object for ``hooks`` (None entries skipped): the only one as it is, a
    composite of several, or the no-op ``AgentHooks`` for none."""
    present = [inner for hook in hooks if hook is not None  # a composite's own, flat
               for inner in (hook.hooks if isinstance(hook, CompositeHooks) else (hook,))]
    if not present:
        return AgentHooks()
    if len(present) == 1:
        return present[0]
    return CompositeHooks(present)

"""Running several hooks as one: each point calls, in order, only the hooks that implement it.

The composite is built once per agent; a point nobody implements costs one call of a no-op, and
a point one hook implements is that hook's own method (no loop), so the turn pays only for what
watches it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from autobyteus_like.hooks._protocol import AgentHooks, overrides

if TYPE_CHECKING:
    from autobyteus_like.errors import UsageLimitExceededError
    from autobyteus_like.hooks._protocol import CallKind, TurnView

__all__ = ["CompositeHooks", "compose"]

_POINTS = tuple(name for name, value in vars(AgentHooks).items()
                if callable(value) and not name.startswith("_")
                and name not in ("verdict", "claim"))


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
        self.needs_whole_response = any(hook.needs_whole_response for hook in self.hooks)
        for name in _POINTS:
            methods = [getattr(hook, name) for hook in self.hooks if overrides(hook, name)]
            if len(methods) == 1:
                setattr(self, name, methods[0])
            elif methods:
                setattr(self, name, _chain(methods))
        self._judges = [hook.verdict for hook in self.hooks if overrides(hook, "verdict")]
        if len(self._judges) == 1:
            self.verdict = self._judges[0]  # type: ignore[method-assign]
        self._claimers = [hook.claim for hook in self.hooks if overrides(hook, "claim")]

    def claim(self, turn: TurnView, kind: CallKind) -> UsageLimitExceededError | None:
        """The first refusal wins (hooks after it are not asked, so none counts it)."""
        for claimer in self._claimers:
            error = claimer(turn, kind)
            if error is not None:
                return error
        return None

    def verdict(self) -> UsageLimitExceededError | None:
        for judge in self._judges:
            error = judge()
            if error is not None:
                return error
        return None


def compose(hooks: Sequence[AgentHooks | None]) -> AgentHooks:
    """One hooks object for ``hooks`` (None entries skipped): the only one as it is, a
    composite of several, or the no-op ``AgentHooks`` for none."""
    present = [hook for hook in hooks if hook is not None]
    if not present:
        return AgentHooks()
    if len(present) == 1:
        return present[0]
    return CompositeHooks(present)

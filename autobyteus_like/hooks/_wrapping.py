"""The wrap points' chains: which hooks wrap a model request or a tool call, and the chain that
runs them, the first hook outermost, around the request or call itself.

The turn's services ask ``wrappers`` once, when the agent's hooks are fixed: no wrapping hook
means no chain at all (the request or call runs as it would without hooks). A chain remembers
what its innermost step (the request or call itself) raised, so a failure that came out of a
hook of its own is told from the tool's or the model's (``own_failure``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Literal

from autobyteus_like.hooks._composite import CompositeHooks
from autobyteus_like.hooks._culprit import failing_wrapper
from autobyteus_like.hooks._protocol import AgentHooks, overrides

if TYPE_CHECKING:
    from autobyteus_like.llm._messages import LLMChunk

__all__ = ["Chain", "WrapPoint", "wrappers"]

WrapPoint = Literal["wrap_model_request", "wrap_tool_call"]


def wrappers(hooks: AgentHooks, point: WrapPoint) -> tuple[Callable[..., Any], ...]:
    """The hooks' methods at wrap point ``point``, outermost first (those that override it)."""
    every = hooks.hooks if isinstance(hooks, CompositeHooks) else (hooks,)
    return tuple(getattr(hook, point) for hook in every if overrides(hook, point))


class Chain:
    """The wrapping hooks around one request or call (a chain is built for each); ``streams``:
    the innermost step returns chunks, read after it returned (a stream raises while it is
    read). ``own_failure`` says whether what came out was raised by a hook, and names it."""

    __slots__ = ("_inner", "_raised", "_streams", "_wrappers")

    def __init__(self, wrapping: Sequence[Callable[..., Any]], inner: Callable[[Any], Any],
                 streams: bool = False) -> None:
        self._wrappers = wrapping
        self._inner = inner
        self._streams = streams
        self._raised: BaseException | None = None

    def __call__(self, call: Any) -> Any:
        """The outcome of ``call`` through every wrapping hook, the first outermost."""
        return self._step(0)(call)

    def _step(self, index: int) -> Callable[[Any], Any]:
        if index == len(self._wrappers):
            return self._stream if self._streams else self._innermost
        wrapper = self._wrappers[index]
        return lambda current: wrapper(current, self._step(index + 1))

    def _innermost(self, call: Any) -> Any:
        try:
            return self._inner(call)
        except Exception as exc:
            self._raised = exc
            raise

    def _stream(self, call: Any) -> Iterator[LLMChunk]:
        try:
            yield from self._inner(call)
        except Exception as exc:
            self._raised = exc
            raise

    def own_failure(self, exc: BaseException) -> str | None:
        """``Class.point`` of the wrapping hook that raised ``exc``, or None when it came
        from the request or call itself (passed on by the hooks) or from no hook."""
        if exc is self._raised:
            return None
        return failing_wrapper(exc)

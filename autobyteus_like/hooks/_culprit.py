"""Which hook failed: the hook and the point named in a turn's error, read from the traceback
once something raised (nothing is paid while the hooks run), so a user's own hook that raises
says "``MyHooks.call_running`` raised ..." instead of naming only the event being handled."""

from __future__ import annotations

from types import FrameType

from autobyteus_like.hooks._composite import CompositeHooks
from autobyteus_like.hooks._protocol import AgentHooks

__all__ = ["failing_hook", "failing_wrapper", "hook_failure"]

_POINTS = tuple(name for name, value in vars(AgentHooks).items()
                if callable(value) and not name.startswith("_"))
_WRAPS = tuple(name for name in _POINTS if name.startswith("wrap_"))


def _point_of(frame: FrameType, points: tuple[str, ...] = _POINTS) -> str | None:
    """``Class.point`` when ``frame`` runs a hook's point (the outermost such frame is the
    one the turn machine called)."""
    owner = frame.f_locals.get("self")
    if not isinstance(owner, AgentHooks) or isinstance(owner, CompositeHooks):
        return None
    for name in points:
        method = getattr(type(owner), name, None)
        if getattr(method, "__code__", None) is frame.f_code:
            return f"{type(owner).__name__}.{name}"
    return None


def failing_hook(exc: BaseException) -> str | None:
    """``Class.point`` of the hook that raised ``exc`` (None: no hook did)."""
    trace = exc.__traceback__
    while trace is not None:
        found = _point_of(trace.tb_frame)
        if found is not None:
            return found
        trace = trace.tb_next
    return None


def failing_wrapper(exc: BaseException) -> str | None:
    """``Class.point`` of the wrapping hook that raised ``exc``: the innermost wrap point in
    its traceback (the hooks outside it only passed it on)."""
    found = None
    trace = exc.__traceback__
    while trace is not None:
        found = _point_of(trace.tb_frame, _WRAPS) or found
        trace = trace.tb_next
    return found


def hook_failure(exc: BaseException) -> str:
    """``exc`` said as a turn's error, then the hook and point that raised it, if one did."""
    hook = failing_hook(exc)
    said = f"{type(exc).__name__}: {exc}"
    return said if hook is None else f"{said}; raised by the hook {hook}"

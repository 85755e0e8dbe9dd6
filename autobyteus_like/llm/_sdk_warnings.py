"""A provider SDK's warnings (Anthropic's "the model ... is deprecated") passed on as the
SDK's own, once each: an SDK that warns with a ``stacklevel`` reaching past itself would
otherwise have them attributed to our line that called it, on every request."""

from __future__ import annotations

import inspect
import threading
import warnings
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["sdk_warnings_passed_on"]

T = TypeVar("T")

_said: set[tuple[type[Warning], str]] = set()
_lock = threading.Lock()


def sdk_warnings_passed_on(create: Callable[..., T], **body: Any) -> T:
    """``create(**body)``, each warning it raised warned again once per process, located in
    the SDK's own code (the function ``create`` is)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = create(**body)
    for warning in caught:
        key = (warning.category, str(warning.message))
        with _lock:
            if key in _said:
                continue
            _said.add(key)
        filename, lineno, module = _where(create)
        warnings.warn_explicit(warning.message, warning.category, filename, lineno,
                               module=module)
    return result


def _where(function: Callable[..., Any]) -> tuple[str, int, str]:
    """The SDK's file, line and module of ``function`` (unwrapped)."""
    inner = inspect.unwrap(function)
    try:
        return (inspect.getsourcefile(inner) or "<sdk>", inspect.getsourcelines(inner)[1],
                getattr(inner, "__module__", "sdk") or "sdk")
    except (OSError, TypeError):
        return "<sdk>", 0, getattr(inner, "__module__", "sdk") or "sdk"

"""What is kept with a config: values worked out from a frozen config alone, made once by the
first that needs them and kept while the config lives (a weak reference: a dropped config takes
its entry with it). Configs are keyed by identity, whatever their type."""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["carry", "entry", "shared"]

T = TypeVar("T")
C = TypeVar("C")

_derived: dict[int, tuple[weakref.ref[Any], dict[Any, Any]]] = {}


def entry(config: object) -> dict[Any, Any]:
    """The values kept with ``config`` (made empty on first use)."""
    key = id(config)
    found = _derived.get(key)
    if found is not None and found[0]() is config:
        return found[1]

    def forget(ref: weakref.ref[Any], key: int = key) -> None:
        if _derived.get(key, (None,))[0] is ref:  # not a later config at the same address
            _derived.pop(key, None)

    made: dict[Any, Any] = {}
    _derived[key] = (weakref.ref(config, forget), made)
    return made


def shared(config: C, key: str, make: Callable[[C], T]) -> T:
    """``make(config)``, made once per config and kept with it under ``key``."""
    kept = entry(config)
    try:
        return kept[key]  # type: ignore[no-any-return]
    except KeyError:
        found = kept[key] = make(config)
        return found


def carry(source: object, copy: object, key: str) -> None:
    """Keep ``source``'s ``key`` (if made) with ``copy`` too."""
    found = _derived.get(id(source))
    if found is not None and found[0]() is source and key in found[1]:
        entry(copy)[key] = found[1][key]

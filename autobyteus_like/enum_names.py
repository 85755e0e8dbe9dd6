"""Reading enum members from their names, as users and config files write them."""

from __future__ import annotations

from enum import StrEnum
from typing import TypeVar

__all__ = ["parse_member"]

E = TypeVar("E", bound=StrEnum)


def parse_member(cls: type[E], value: E | str, what: str, plural: str) -> E:
    """``value`` as a member of ``cls`` (case-insensitive), or a ValueError listing them all
    (``unknown {what} 'x'; known {plural}: ...``)."""
    if isinstance(value, cls):
        return value
    try:
        return cls(str(value).strip().lower())
    except ValueError:
        known = ", ".join(member.value for member in cls)
        raise ValueError(f"unknown {what} {value!r}; known {plural}: {known}") from None

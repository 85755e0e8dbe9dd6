"""Tool names as providers accept them: ``fs.read`` becomes ``fs_read`` on the wire and back."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable

__all__ = ["WireNames"]

_ILLEGAL = re.compile(r"[^A-Za-z0-9_-]")


class WireNames:
    """A two-way mapping for one request's tools; legal names pass through unchanged.

    A name is cleaned (illegal characters to ``_``) and cut to ``limit``; if two tools would
    meet on one wire name, the later gets a short hash suffix.
    """

    def __init__(self, names: Iterable[str], limit: int = 64) -> None:
        self._to_wire: dict[str, str] = {}
        self._from_wire: dict[str, str] = {}
        for name in names:
            wire = _ILLEGAL.sub("_", name)[:limit]
            if wire in self._from_wire:
                digest = hashlib.sha256(name.encode()).hexdigest()[:8]
                wire = f"{wire[: limit - 9]}_{digest}"
            self._to_wire[name] = wire
            self._from_wire[wire] = name

    def wire(self, name: str) -> str:
        """The name to send (an unknown name is cleaned the same way)."""
        return self._to_wire.get(name) or _ILLEGAL.sub("_", name)[:64]

    def knows(self, wire: str) -> bool:
        """Whether ``wire`` is the wire name of one of this request's tools."""
        return wire in self._from_wire

    def name(self, wire: str) -> str:
        """The tool name a wire name stands for (unknown names come back as they are)."""
        return self._from_wire.get(wire, wire)

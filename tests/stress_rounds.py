"""How many rounds the suite's stress checks run: a few in the suite (each keeps its property
and fails on the defect it hunts, it just draws fewer random moments or inputs), many when a
person asks for the deep run, ``AUTOBYTEUS_THOROUGH=1 .venv/bin/pytest -m slow``."""

from __future__ import annotations

import os

__all__ = ["THOROUGH", "rounds"]

THOROUGH = os.environ.get("AUTOBYTEUS_THOROUGH", "") not in ("", "0")
"""Whether this run is the deep one (set by hand; CI runs the suite's rounds)."""


def rounds(suite: int, thorough: int) -> int:
    """``suite`` rounds in the suite's run, ``thorough`` in the deep one."""
    return thorough if THOROUGH else suite

"""How many rounds the suite's stress checks run: a few in the suite (each keeps its property
and fails on the defect it hunts, it just draws fewer random moments or inputs), many when a
person asks for the deep run, ``AUTOBYTEUS_THOROUGH=1 .venv/bin/pytest -m slow``. And the Ray
cases that run only in the deep run: further cases of a behaviour the suite already checks on
Ray once (a Ray case costs seconds: the working order's "a dozen behaviour cases on Ray, the
rest on the local runtime or against the link's contract")."""

from __future__ import annotations

import os

import pytest

__all__ = ["THOROUGH", "in_the_deep_run", "rounds"]

THOROUGH = os.environ.get("AUTOBYTEUS_THOROUGH", "") not in ("", "0")
"""Whether this run is the deep one (set by hand; CI runs the suite's rounds)."""


def rounds(suite: int, thorough: int) -> int:
    """``suite`` rounds in the suite's run, ``thorough`` in the deep one."""
    return thorough if THOROUGH else suite


def in_the_deep_run(covered_by: str) -> pytest.MarkDecorator:
    """A Ray case that runs only in the deep run; ``covered_by`` names what checks its
    behaviour in the suite's run (its local case, or the Ray case kept for its family)."""
    return pytest.mark.skipif(not THOROUGH, reason=f"a further Ray case, in the deep run only "
                              f"(AUTOBYTEUS_THOROUGH=1); in the suite: {covered_by}")

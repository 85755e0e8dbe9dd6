"""How the suite shares out its tests over pytest-xdist's workers (``-n 2``, pyproject's
``addopts``; ``-n 0`` runs it in one process).

A unit of work goes whole to one worker: a test module (its module fixtures, a browser or a
server, are set up once), or a group of modules that share something only one process may
hold (``xdist_group`` marks, added here by what the tests use, never written in a test file):

- ``ray``: every module with a test on the suite's local Ray cluster or a cluster of its own
  (one cluster at a time on the machine: ``address: auto`` joins whichever it finds);
- ``llama``: every module on the real model (one llama.cpp server for the run, not one a
  worker; its two chat formats are swapped on one server).

The units go out heaviest first (a slow test counts as seconds, another as a tenth), so the
two long groups start at once, one a worker, and the small modules fill in at the end.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

__all__ = ["ModuleOrGroupScheduling", "share_out"]

SLOW_S = 5.0
"""What a test marked slow counts as, in seconds (the mark's threshold)."""
FAST_S = 0.1
"""What another test counts as."""


def share_out(items: list[pytest.Item], group_of: Callable[[pytest.Item], str | None],
              first: frozenset[Path] = frozenset()) -> None:
    """Mark each item of a group (``group_of`` names it, by what the item's module uses: a
    module goes whole into a group) and put the work units in order, heaviest first; within
    a unit, modules in ``first`` before the others, else as collected."""
    groups: dict[Path, str] = {}
    for item in items:
        if item.path not in groups and (group := group_of(item)):
            groups[item.path] = group
    units: dict[str, list[pytest.Item]] = {}
    for item in items:
        group = groups.get(item.path)
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))
        units.setdefault(group or str(item.path), []).append(item)

    def weight(unit: list[pytest.Item]) -> float:
        return sum(SLOW_S if item.get_closest_marker("slow") else FAST_S for item in unit)

    ordered = sorted(units.values(), key=weight, reverse=True)  # stable: ties as collected
    items[:] = [item for unit in ordered
                for item in sorted(unit, key=lambda item: item.path not in first)]


def _scheduling_base() -> type:
    from xdist.scheduler import LoadScopeScheduling

    return LoadScopeScheduling


class ModuleOrGroupScheduling(_scheduling_base()):  # type: ignore[misc]
    """xdist's ``loadgroup`` with a module, not a single test, as the unit of an unmarked
    test; units are sent in the order the workers collected them (``share_out``'s)."""

    def __init__(self, config: pytest.Config, log: object = None) -> None:
        super().__init__(config, log)
        config.option.loadscopereorder = False

    def _split_scope(self, nodeid: str) -> str:
        if nodeid.rfind("@") > nodeid.rfind("]"):  # a group's (an "@" in a parameter's
            return nodeid.split("@")[-1]  # id comes before its "]")
        return nodeid.split("::", 1)[0]

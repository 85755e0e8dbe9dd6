"""How the suite shares out its tests over pytest-xdist's workers (``-n 2 --dist loadgroup``,
pyproject's ``addopts``; ``-n 0`` runs it in one process).

A unit of work goes whole to one worker: a test module (its module fixtures, a browser or a
server, are set up once), or a group of modules that share something only one process may
hold, chosen here by what the tests use (never written in a test file):

- ``ray``: every module with a test on the suite's local Ray cluster or a cluster of its own
  (one cluster at a time on the machine: ``address: auto`` joins whichever it finds);
- ``llama``: every module on the real model (one llama.cpp server for the run, not one a
  worker; its two chat formats are swapped on one server).

The units go out heaviest first (a slow test counts as seconds, another as a tenth), so the
two long groups start at once, one a worker, and the small modules fill in at the end.

Each worker collects the whole run and orders it (``share_out``) and writes the groups to
a file in the run's temporary folder, where the controller's scheduler reads them (xdist's
own ``xdist_group`` mark renames the test's node id, which pytest 9 no longer allows).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

__all__ = ["ModuleOrGroupScheduling", "share_out"]

SLOW_S = 5.0
"""What a test marked slow counts as, in seconds (the mark's threshold)."""
FAST_S = 0.1
"""What another test counts as."""


def _groups_file(run_folder: Path, worker: str) -> Path:
    return run_folder / f"xdist-groups-{worker}.json"


def share_out(config: pytest.Config, items: list[pytest.Item],
              group_of: Callable[[pytest.Item], str | None],
              first: frozenset[Path] = frozenset()) -> None:
    """In an xdist worker: put the run's work units in order, heaviest first (within a unit,
    modules in ``first`` before the others, else as collected), and write each grouped
    module's group (``group_of`` names it for a test: its module goes whole into it)."""
    groups: dict[str, str] = {}
    for item in items:
        module = item.nodeid.split("::", 1)[0]
        if module not in groups and (group := group_of(item)):
            groups[module] = group
    units: dict[str, list[pytest.Item]] = {}
    for item in items:
        module = item.nodeid.split("::", 1)[0]
        units.setdefault(groups.get(module, module), []).append(item)

    def weight(unit: list[pytest.Item]) -> float:
        return sum(SLOW_S if item.get_closest_marker("slow") else FAST_S for item in unit)

    ordered = sorted(units.values(), key=weight, reverse=True)  # stable: ties as collected
    items[:] = [item for unit in ordered
                for item in sorted(unit, key=lambda item: item.path not in first)]
    if not config.option.basetemp:  # not a worker on this machine: no folder shared
        return
    run_folder = Path(config.option.basetemp).parent  # each worker's is popen-gwN in it
    target = _groups_file(run_folder, config.workerinput["workerid"])  # type: ignore[attr-defined]
    written = target.with_suffix(".part")
    written.write_text(json.dumps(groups))
    os.replace(written, target)


def _scheduling_base() -> type:
    from xdist.scheduler import LoadScopeScheduling

    return LoadScopeScheduling


class ModuleOrGroupScheduling(_scheduling_base()):  # type: ignore[misc]
    """xdist's ``loadscope`` with a module, or the group its workers put it in, as the unit;
    units are sent in the order the workers collected them (``share_out``'s)."""

    def __init__(self, config: pytest.Config, log: object = None) -> None:
        super().__init__(config, log)
        config.option.loadscopereorder = False
        self._groups: dict[str, str] = {}

    def schedule(self) -> None:
        if self.collection is None and self.nodes:  # the first time: every worker collected
            run_folder = self.config._tmp_path_factory.getbasetemp()
            written = _groups_file(run_folder, self.nodes[0].gateway.id)
            self._groups = json.loads(written.read_text()) if written.exists() else {}
        super().schedule()

    def _split_scope(self, nodeid: str) -> str:
        module = nodeid.split("::", 1)[0]
        return self._groups.get(module, module)

"""pytest plugin: the ``scripted_team`` fixture (registered automatically on install)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from autobyteus_like.testing._simulation import SimulatedTeam
from autobyteus_like.testing._simulation import scripted_team as _scripted_team

__all__ = ["scripted_team"]


@pytest.fixture
def scripted_team() -> Iterator[Callable[..., SimulatedTeam]]:
    """A factory: ``scripted_team(config_or_yaml, scripts, tools=...)`` gives a started
    SimulatedTeam that is stopped when the test ends."""
    started: list[SimulatedTeam] = []

    def make(*args: Any, **kwargs: Any) -> SimulatedTeam:
        team = _scripted_team(*args, **kwargs)
        started.append(team.__enter__())
        return team

    yield make
    for team in started:
        team.__exit__(None, None, None)

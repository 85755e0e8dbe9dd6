"""Small teams for the Ray tests, scripted in the json tool format."""

from __future__ import annotations

import json
from typing import Any

import pytest

from autobyteus_like import AgentConfig, ScriptedLLM, TeamConfig
from autobyteus_like.events import AgentEvent
from autobyteus_like.mail._events import TeamQuiescent
from autobyteus_like.runtime import RayRuntime
from tests.stress_rounds import in_the_deep_run

RAY_KINDS = ["ray", "ray-packed"]
"""The two Ray kinds: every member in a host of its own (``members_per_worker: 1``), and
packed two to a host (a two-member team shares one process; a larger one has messages both
within a host and across hosts)."""


def on_local_and(kind: str, deep_only: str | None = None) -> pytest.MarkDecorator:
    """Runs a member-surface test (its ``runtime`` fixture) locally and on one Ray kind. Each
    behaviour runs on Ray once, the kinds taken in turn across the tests (the working order's
    "a dozen behaviour cases on Ray": a Ray case costs seconds, and what differs between the
    kinds, a host of one or of several, is the same code for every behaviour). ``deep_only``:
    the Ray case runs only in the deep run, and this names the Ray case that covers what it
    needs of Ray in the suite (its local case covers the rest)."""
    assert kind in RAY_KINDS
    ray: Any = kind
    if deep_only is not None:
        ray = pytest.param(kind, marks=in_the_deep_run(f"its local case; on Ray, {deep_only}"))
    return pytest.mark.parametrize("runtime", ["local", ray], indirect=True)


def ray_runtime(kind: str = "ray", **options: Any) -> RayRuntime:
    """The Ray runtime of a kind in ``RAY_KINDS``."""
    return RayRuntime(backend="ray", members_per_worker=2 if kind == "ray-packed" else 1,
                      **options)


def call(name: str, **arguments: Any) -> str:
    return json.dumps({"name": name, "arguments": arguments})


def calls(*texts: str) -> str:
    return "[" + ", ".join(texts) + "]"


def member(name: str, responses: list[Any], tools: list[Any] | None = None,
           **options: Any) -> AgentConfig:
    options.setdefault("tool_format", "json")
    return AgentConfig(name=name, role=f"the {name}", llm=ScriptedLLM(responses),
                       tools=tools if tools is not None else ["send_message_to"], **options)


def team_config(*members: AgentConfig, **options: Any) -> TeamConfig:
    return TeamConfig(name="t", coordinator=members[0].name, members=list(members), **options)


def until_quiet(events: Any, timeout: float = 60, on_event: Any = None) -> list[AgentEvent]:
    """Every event until the team is quiet (the TeamQuiescent last)."""
    seen: list[AgentEvent] = []
    while True:
        event = events.get(timeout=timeout)
        assert event is not None, "the team stopped before it was quiet"
        seen.append(event)
        if on_event is not None:
            on_event(event)
        if isinstance(event, TeamQuiescent):
            return seen

"""The scripted example teams give the same transcript on both backends: the same messages,
calls, results and answers per member, and every LLM shown exactly the same requests."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from autobyteus_like.events import (
    AgentEvent,
    ApprovalRequested,
    LLMChunkReceived,
    ToolResultReceived,
    ToolStarted,
    UserMessageReceived,
)
from autobyteus_like.mail._events import TeamQuiescent
from autobyteus_like.runtime import LocalRuntime
from autobyteus_like.team import AgentTeam
from autobyteus_like.testing._simulation import scripted_team

EXAMPLES = Path(__file__).parents[2] / "examples"
sys.path.insert(0, str(EXAMPLES))
from example_tools import make_tools  # noqa: E402

from tests.runtime.scripted_teams import RAY_KINDS, ray_runtime  # noqa: E402
from tests.stress_rounds import in_the_deep_run  # noqa: E402

TEAMS = ["software_team.yaml", "research_team.yaml"]
_SESSION_IDS = re.compile(r"call_[0-9a-f]{12}_")
"""Invocation ids carry a random per-agent prefix; the counter after it is compared."""


def _shown(value: object) -> str:
    return _SESSION_IDS.sub("call_", repr(value))


def run_example(yaml: str, backend: str, tmp_path: Path) -> dict[str, object]:
    """Run one example with every call approved; what each member did and was shown."""
    tools = make_tools()
    if backend != "local":
        from tests.runtime.shared_workspace import FileStore, share_workspace

        store = FileStore.remote()
        share_workspace(tools, store)
    simulated = scripted_team(EXAMPLES / yaml, tools=tools)
    runtime = ray_runtime(backend) if backend != "local" else LocalRuntime()
    team = AgentTeam(simulated.team.config, tools=tools, runtime=runtime)
    seen: list[AgentEvent] = []
    with team:
        events = team.events()
        team.send("go")
        while not isinstance(event := events.get(timeout=60), TeamQuiescent):
            seen.append(event)
            if isinstance(event, ApprovalRequested):
                team.approve(event.agent, event.invocation.id)
        quiet = event
        events.close()
        llms = {name: (member.fetch_llm() if backend != "local" else member.config.llm)
                for name, member in team.agents.items()}
    per_agent: dict[str, list[AgentEvent]] = {}
    for seen_event in seen:
        if isinstance(seen_event, LLMChunkReceived):
            continue  # how text was cut into chunks is the LLM's business, not the team's
        per_agent.setdefault(seen_event.agent, []).append(seen_event)
    return {
        "answer": quiet.answer,
        # results of parallel calls arrive in whatever order they finish
        "events": {agent: _in_order_except_results(events)
                   for agent, events in per_agent.items()},
        "requests": {name: [_shown(request) for request in llm.requests]
                     for name, llm in llms.items()},
        "unused": {name: llm.remaining for name, llm in llms.items()},
        "results": sorted(_shown(e.result) for e in seen if isinstance(e, ToolResultReceived)),
        "started": sorted(_shown(e.invocation) for e in seen if isinstance(e, ToolStarted)),
    }


_TIMING = ("ToolStarted", "ToolResultReceived", "AgentStatusChanged", "ApprovalGranted")
"""Events whose place among the others depends on how fast calls and approvals come back."""


def _teammates_message(event: AgentEvent) -> bool:
    """A message from another member: it is received (and queued) when the teammate sends
    it, which may be before or after the receiver's own turn ends."""
    return isinstance(event, UserMessageReceived) and event.sender is not None


def _in_order_except_results(events: list[AgentEvent]
                             ) -> tuple[list[str], list[str], list[str]]:
    """The events in order; apart (sorted) those whose order is a matter of timing; apart
    (in order) the teammates' messages, whose place among the receiver's own events depends
    on how fast the teammate was. Statuses are left out: whether an agent is seen waiting only
    for a person depends on whether its other call finished before the approval came back."""
    shown = [(_shown(event), event) for event in events]
    return ([item for item, event in shown
             if not item.startswith(_TIMING) and not _teammates_message(event)],
            sorted(item for item, _ in shown if item.startswith(_TIMING)
                   and not item.startswith("AgentStatusChanged")),
            [item for item, event in shown if _teammates_message(event)])


@pytest.fixture(scope="module")
def local_transcripts(tmp_path_factory):
    return {yaml: run_example(yaml, "local", tmp_path_factory.mktemp("local")) for yaml in TEAMS}


@pytest.mark.parametrize(("yaml", "backend"), [
    (yaml, backend) if backend == "local" or yaml == TEAMS[0] else pytest.param(
        yaml, backend, marks=in_the_deep_run(f"{TEAMS[0]} on Ray and this team's local case"))
    for yaml, ray_kind in zip(TEAMS, RAY_KINDS, strict=True) for backend in ("local", ray_kind)])
def test_an_example_team_gives_the_same_transcript_on_each_backend(
        yaml, backend, local_transcripts, request, tmp_path):
    if backend != "local":
        request.getfixturevalue("ray_cluster")
    transcript = run_example(yaml, backend, tmp_path)
    assert transcript["unused"] == dict.fromkeys(transcript["unused"], 0)  # the whole script ran
    assert "failure" not in " ".join(transcript["results"])  # every call succeeded
    expected = local_transcripts[yaml]
    assert transcript["answer"] == expected["answer"]
    assert transcript["results"] == expected["results"]
    assert transcript["requests"] == expected["requests"]
    assert transcript["events"] == expected["events"]

"""Conversations on Ray: each conversation's members live in hosts of their own, the callers
of one conversation queue in order and each gets the answer to its own message (a few fixed
cases on the suite's local Ray cluster; the local runtime's are tests/team/)."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from autobyteus_like import AgentTeam
from autobyteus_like.llm import LLMRequest
from autobyteus_like.store import Session
from tests.runtime.scripted_teams import member, ray_runtime, team_config


def _reply(request: LLMRequest) -> str:
    asked = next(m.content for m in reversed(request.messages) if m.role == "user")
    return f"answer to {asked}"


@pytest.mark.slow  # two conversations: two hosts' processes start (seconds)
def test_ray_conversations_each_caller_gets_its_own_answer(ray_cluster, tmp_path):
    """Four threads at once on the default conversation (released by a barrier) and one
    message in another conversation: every caller gets the answer to its own message, each
    conversation's members are in a process of their own, and each writes its own session
    record (``chat``, ``chat@alice``) from there."""
    callers = 4
    barrier = threading.Barrier(callers + 1)
    lead = member("lead", [_reply] * (callers + 1), tools=[])
    with Session("chat", tmp_path / "team.db") as session, \
            AgentTeam(team_config(lead), runtime=ray_runtime(), session=session) as team:
        team.conversation("alice")  # built first: its host's start is not the race

        def caller(index: int) -> str:
            barrier.wait(timeout=60)
            conversation = "alice" if index == callers else None
            return team.run(f"q{index}", timeout=120, conversation=conversation)

        with ThreadPoolExecutor(callers + 1) as pool:
            answers = list(pool.map(caller, range(callers + 1)))
        pids = {ray_cluster.get(team.conversation(c).agents["lead"].handle.pid.remote(),
                                timeout=60)
                for c in (None, "alice")}
        stored = {name: [m.content for m in session.store.history(name, "lead")
                         if m.role == "user"] for name in ("chat", "chat@alice")}
    assert answers == [f"answer to q{index}" for index in range(callers + 1)]
    assert len(pids) == 2
    assert stored["chat@alice"] == [f"q{callers}"]
    assert sorted(stored["chat"]) == [f"q{index}" for index in range(callers)]

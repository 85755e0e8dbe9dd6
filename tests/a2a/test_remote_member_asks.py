"""A member whose model is a remote A2A agent (``a2a:``) passes the remote's question
(``input-required``: a served team's approval) to our approval flow: the person's decision is
the next message of that task; nothing is answered unasked; a denial reaches the remote with
its reason."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("a2a", reason="the A2A tests need autobyteus-like[a2a]")

from autobyteus_like import AgentTeam
from autobyteus_like.events import ApprovalRequested
from tests.a2a.test_a2a_input_required import purging_team
from tests.a2a.test_serve_a2a import served


def approval_asked(events: Any) -> ApprovalRequested:
    while not isinstance(event := events.get(timeout=60), ApprovalRequested):
        assert event is not None
    return event


def calling_team(tmp_path: Path, url: str) -> Path:
    path = tmp_path / "caller.yaml"
    path.write_text(json.dumps({
        "name": "callers", "coordinator": "remote",
        "members": [{"name": "remote", "a2a": {"url": url, "timeout_s": 60}}]}))
    return path


@pytest.mark.slow  # a served team in its own process
def test_a_remote_members_question_waits_for_a_person_and_their_decision_is_sent(tmp_path):
    marker = tmp_path / "marker"
    marker.write_text("")
    with served(purging_team(tmp_path, marker, rounds=2)) as (url, process), \
            AgentTeam.from_yaml(calling_team(tmp_path, url)) as team:
        events = team.events()
        reply = team.send("purge it")
        asked = approval_asked(events)
        assert asked.invocation.name == "a2a_answer"
        assert "lead wants to call purge" in asked.invocation.arguments["question"]
        assert marker.read_text() == ""  # nothing answered the remote unasked
        team.approve(asked.agent, asked.invocation.id)  # the person says yes
        assert reply.result(timeout=60) == "Done with the purge."
        assert marker.read_text() == "purged\n"
        # a denial goes to the remote as its next message, with the reason
        reply = team.send("purge again")
        asked = approval_asked(events)
        team.deny(asked.agent, asked.invocation.id, "not today")
        assert reply.result(timeout=60) == "Done with the purge."
        assert marker.read_text() == "purged\n"  # the second purge never ran
        events.close()
    assert process.returncode == 0


@pytest.mark.slow  # a served team in its own process
def test_yes_never_answers_a_remote_members_question(tmp_path, capsys):
    from autobyteus_like.cli import main
    from autobyteus_like.serving import ApprovalPolicy

    marker = tmp_path / "marker"
    marker.write_text("")
    with served(purging_team(tmp_path, marker, rounds=1)) as (url, process):
        code = main(["run", str(calling_team(tmp_path, url)), "-m", "purge it", "--yes",
                     "--json"])
    assert process.returncode == 0
    out = capsys.readouterr()
    assert "--yes never answers one" in out.out + out.err, out
    assert marker.read_text() == ""  # the remote never heard an approval
    assert code in (0, 1)
    allowed, why = ApprovalPolicy(["*"]).decide("a2a_answer")  # nor does a server's policy
    assert not allowed and "never answers one" in why

"""A session becomes a test: a two-member team with mail and an approval, recorded on SQLite and
PostgreSQL, exported, replayed offline; edited, the replay fails naming what changed."""

from __future__ import annotations

import json
import re

import pytest
import yaml

from autobyteus_like import AgentConfig, AgentTeam, ScriptedLLM, TeamConfig, tool
from autobyteus_like.store import Session
from autobyteus_like.testing import SimulatedTeam, export_session, replay_export

KEY = "sk-test-0123456789abcdefSECRET"


def call(name: str, **arguments: object) -> str:
    return json.dumps({"name": name, "arguments": arguments})


@tool
def lookup(topic: str) -> str:
    """Look a topic up."""
    return f"notes on {topic}"


@tool(requires_approval=True)
def publish(text: str) -> str:
    """Publish a text (a person decides)."""
    return f"published {len(text)} characters"


def team_config() -> TeamConfig:
    lead = ["I look it up.\n" + call("lookup", topic="actors"),
            call("lookup", topic="mailboxes"),
            call("send_message_to", recipient_name="writer", content="Publish the notes."),
            "Asked the writer.", f"Done (my key was {KEY})."]
    writer = [call("publish", text="notes on actors"), call("send_message_to",
              recipient_name="lead", content="Published."), "Told the lead."]
    return TeamConfig(name="pair", coordinator="lead", members=[
        AgentConfig(name="lead", llm=ScriptedLLM(lead), tools=["lookup", "send_message_to"],
                    tool_format="json"),
        AgentConfig(name="writer", llm=ScriptedLLM(writer),
                    tools=["publish", "send_message_to"], tool_format="json")])


def record(store_url: str) -> Session:
    session = Session("pair-1", store_url)
    team = AgentTeam(team_config(), tools=[lookup, publish], session=session)
    with SimulatedTeam(team, {}, "approve") as simulated:
        transcript = simulated.run("Write up actors.")
    assert transcript.error is None, transcript.error
    return session


@pytest.fixture(params=["sqlite", "postgres"])
def store_url(request, tmp_path):
    if request.param == "sqlite":
        return str(tmp_path / "sessions.db")
    return request.getfixturevalue("postgres_server").new_database()


def test_an_exported_team_session_replays_offline_and_fails_on_a_change(store_url, tmp_path,
                                                                        monkeypatch):
    monkeypatch.setenv("SOME_PROVIDER_API_KEY", KEY)
    session = record(store_url)
    try:
        recorded = session.store.recordings.requests("pair-1", "lead")
        assert len(recorded) == 5 and recorded[0]["messages"][-1]["content"] == \
            "Write up actors."
        assert session.store.recordings.responses("pair-1", "writer")[0]["text"].startswith(
            '{"name": "publish"')
        folder = tmp_path / "exported"
        module = export_session(session.store, "pair-1", folder, check_requests=True)
    finally:
        session.close()
    exported = "\n".join(path.read_text() for path in folder.iterdir())
    assert KEY not in exported and "[REDACTED]" in exported  # the model echoed it
    assert module.name == "test_recorded.py"
    replay_export(folder, tmp_path / "run1", check_requests=True)  # passes as recorded

    team = yaml.safe_load((folder / "team.yaml").read_text())
    lead = team["members"][0]
    lead["llm"]["responses"][0], lead["llm"]["responses"][1] = \
        lead["llm"]["responses"][1], lead["llm"]["responses"][0]
    (folder / "team.yaml").write_text(yaml.safe_dump(team, sort_keys=False))
    with pytest.raises(AssertionError) as failed:
        replay_export(folder, tmp_path / "run2")
    text = str(failed.value)
    assert re.search(r'lead: calls reordered: lookup\(\{"topic": "actors"\}\) -> succeeded '
                     r'<-> lookup\(\{"topic": "mailboxes"\}\)', text), text


def test_a_changed_argument_and_a_dropped_call_are_named(tmp_path):
    session = record(str(tmp_path / "s.db"))
    try:
        export_session(session.store, "pair-1", tmp_path / "t")
    finally:
        session.close()
    team = yaml.safe_load((tmp_path / "t" / "team.yaml").read_text())
    responses = team["members"][0]["llm"]["responses"]
    responses[1] = {"text": call("lookup", topic="queues")}
    (tmp_path / "t" / "team.yaml").write_text(yaml.safe_dump(team, sort_keys=False))
    with pytest.raises(AssertionError, match=r"lead: different arguments: expected "
                       r'lookup\(\{"topic": "mailboxes"\}\).*got lookup\(\{"topic": "queues"'):
        replay_export(tmp_path / "t", tmp_path / "run")


@tool(masked_arguments=("token",))
def call_api(url: str, token: str) -> str:
    """Call an API with a token."""
    return f"GET {url} with Authorization: Bearer hdr-{token[::-1]}"


def test_secrets_are_masked_wherever_they_appear(tmp_path, monkeypatch):
    monkeypatch.setenv("MY_SERVICE_TOKEN", "env-token-value-42")
    token = "tok-9f8e7d6c5b4a"
    header = f"hdr-{token[::-1]}"
    lead = [call("call_api", url="https://example.test", token=token),
            f"The header was Bearer {header}; token {token}; env env-token-value-42."]
    config = TeamConfig(name="one", coordinator="lead", members=[
        AgentConfig(name="lead", llm=ScriptedLLM(lead), tools=["call_api"],
                    tool_format="json")])
    session = Session("s", str(tmp_path / "s.db"))
    with SimulatedTeam(AgentTeam(config, tools=[call_api], session=session), {}) as simulated:
        assert simulated.run("go").error is None
    try:
        export_session(session.store, "s", tmp_path / "t")
    finally:
        session.close()
    exported = "\n".join(path.read_text() for path in (tmp_path / "t").iterdir())
    for secret in (token, header, "env-token-value-42"):
        assert secret not in exported
    assert exported.count("[REDACTED]") >= 4
    replay_export(tmp_path / "t", tmp_path / "run")  # the masked test still replays


def test_a_denial_is_replayed_with_its_reason(tmp_path):
    lead = [call("publish", text="draft"), "Not published."]
    config = TeamConfig(name="one", coordinator="lead", members=[
        AgentConfig(name="lead", llm=ScriptedLLM(lead), tools=["publish"], tool_format="json")])
    session = Session("d", str(tmp_path / "s.db"))
    with SimulatedTeam(AgentTeam(config, tools=[publish], session=session), {},
                       lambda member, call: "not today") as simulated:
        assert simulated.run("go").error is None
    try:
        export_session(session.store, "d", tmp_path / "t")
    finally:
        session.close()
    recording = json.loads((tmp_path / "t" / "recording.json").read_text())
    [denied] = recording["outline"]["members"]["lead"]["calls"]
    assert (denied["status"], denied["decision"]) == ("denied", "denied: not today")
    replay_export(tmp_path / "t", tmp_path / "run")


def test_any_text_a_model_wrote_is_exported_exactly(tmp_path):
    odd = "caf\u00e9 \U0001f600 \udcff <tag> 'quote' \"dq\" \\ {braces} [0]"
    config = TeamConfig(name="one", coordinator="lead", members=[
        AgentConfig(name="lead", llm=ScriptedLLM([call("lookup", topic=odd), odd]),
                    tools=["lookup"], tool_format="json")])
    session = Session("weird name/1", str(tmp_path / "s.db"))
    with SimulatedTeam(AgentTeam(config, tools=[lookup], session=session), {}) as simulated:
        assert simulated.run(odd).error is None
    try:
        module = export_session(session.store, "weird name/1", tmp_path / "t")
    finally:
        session.close()
    assert "def test_session_weird_name_1_replays" in module.read_text()
    replay_export(tmp_path / "t", tmp_path / "run")


def test_live_tools_run_again_instead_of_their_recorded_results(tmp_path):
    session = record(str(tmp_path / "s.db"))
    try:
        export_session(session.store, "pair-1", tmp_path / "t", live_tools=True)
    finally:
        session.close()
    assert "live_tools=True" in (tmp_path / "t" / "test_recorded.py").read_text()
    ran: list[str] = []

    @tool(name="lookup")
    def changed_lookup(topic: str) -> str:
        """Look a topic up."""
        ran.append(topic)
        return f"notes on {topic}"

    replay_export(tmp_path / "t", tmp_path / "run", live_tools=True,
                  tools=[changed_lookup, publish])
    assert ran == ["actors", "mailboxes"]


def test_a_member_that_did_nothing_is_exported_too(tmp_path):
    config = TeamConfig(name="three", coordinator="lead", members=[
        AgentConfig(name="lead", llm=ScriptedLLM(["hi"]), tools=["send_message_to"],
                    tool_format="json", system_prompt="Lead. Teammates:\n{{team}}"),
        AgentConfig(name="idle", llm=ScriptedLLM([]), tools=["send_message_to"],
                    tool_format="json")])
    session = Session("s", str(tmp_path / "s.db"))
    with SimulatedTeam(AgentTeam(config, session=session), {}) as simulated:
        assert simulated.run("go").error is None
    try:
        export_session(session.store, "s", tmp_path / "t", team_data={"members": [
            {"name": "lead", "system_prompt": "Lead. Teammates:\n{{team}}"}]})
    finally:
        session.close()
    team = yaml.safe_load((tmp_path / "t" / "team.yaml").read_text())
    assert [member["name"] for member in team["members"]] == ["idle", "lead"]
    replay_export(tmp_path / "t", tmp_path / "run", check_requests=True)

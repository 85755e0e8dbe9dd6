"""A remote A2A agent as our agent's "LLM" (``RemoteA2AAgent``), against a team this project
serves with ``serve-a2a`` in another process (or, where no process boundary is tested, serves
in this one): an answer, a server killed mid-task, a server that is not there, a wrong token."""

from __future__ import annotations

import os
import signal
import socket
import threading
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("a2a", reason="the A2A tests need autobyteus-like[a2a]")

from autobyteus_like import Agent, AgentConfig, AgentTurnError, ScriptedLLM
from autobyteus_like.a2a import RemoteA2AAgent, remote_agent_tool
from tests.a2a.test_serve_a2a import TOKEN, call, served, served_here, team_file


def remote_agent(url: str, **options: object) -> Agent:
    return Agent(AgentConfig(name="caller", llm=RemoteA2AAgent(url, **options)))


@pytest.mark.slow  # a served team in its own process
def test_answer_then_a_server_killed_mid_task(tmp_path):
    marker = tmp_path / "marker"
    team = team_file(tmp_path, ["The answer is 4.", call("wait", seconds=60, marker=str(marker)),
                                "never"])
    with served(team, "--token-env", "A2A_TOKEN_FOR_TEST",
                env={"A2A_TOKEN_FOR_TEST": TOKEN}) as (url, process):
        with remote_agent(url, token="wrong-token-of-some-length") as agent, \
                pytest.raises(AgentTurnError, match="401"):
            agent.run("2+2?", timeout=60)
        with remote_agent(url, token=TOKEN, timeout_s=120) as agent:
            assert agent.run("2+2?", timeout=60) == "The answer is 4."
            outcome: list[BaseException | str] = []
            asked = threading.Thread(target=lambda: outcome.append(_run(agent, "wait")))
            asked.start()
            try:
                started = threading.Event()
                watcher = threading.Thread(target=lambda: _until_started(marker, started))
                watcher.start()
                assert started.wait(60)
                watcher.join()
                os.kill(process.pid, signal.SIGKILL)
            finally:
                asked.join(60)
            [error] = outcome
            assert isinstance(error, AgentTurnError)
            assert f"A2A agent at {url}" in str(error) and "failed" in str(error)


def _run(agent: Agent, message: str) -> BaseException | str:
    try:
        return agent.run(message, timeout=60)
    except BaseException as exc:
        return exc


def _until_started(marker: Path, started: threading.Event) -> None:
    deadline = time.monotonic() + 60  # polls a file another process writes; bounds a failure
    while time.monotonic() < deadline:
        if marker.exists() and marker.read_text() == "started":
            started.set()
            return
        time.sleep(0.02)


def test_a_server_that_is_not_there():
    with socket.socket() as probe:  # a port nobody listens at
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with remote_agent(f"http://127.0.0.1:{port}/", timeout_s=10) as agent, \
            pytest.raises(AgentTurnError, match=r"A2A agent at .*: cannot reach it"):
        agent.run("hello?", timeout=30)


@pytest.mark.slow  # a served team (in this process)
def test_the_tool_form_cancels_the_remote_task_at_its_timeout(tmp_path):
    marker = tmp_path / "marker"
    team = team_file(tmp_path, [call("wait", seconds=60, marker=str(marker)), "never"])
    with served_here(team) as url:
        ask = remote_agent_tool(url, name="ask_remote", timeout_s=5)
        llm = ScriptedLLM([call("ask_remote", message="wait a minute"), "gave up"])
        config = AgentConfig(name="caller", llm=llm, tools=["ask_remote"], tool_format="json",
                             tool_sandboxes={"ask_remote": {"allow_network": True}})
        with Agent(config, tools=[ask]) as agent:
            assert agent.run("go", timeout=60) == "gave up"
        result = llm.requests[1].messages[-1].content
        assert "NOT_AVAILABLE" in result and "no answer within 5 s" in result
        # the remote tool ran, then heard the CancelTask (a file the served team's tool writes)
        deadline = time.monotonic() + 30
        while not (marker.exists() and marker.read_text() == "cancelled") and \
                time.monotonic() < deadline:
            time.sleep(0.02)
        assert marker.read_text() == "cancelled"


@pytest.mark.slow  # a served team in its own process
def test_a_yaml_member_with_a2a_answers_and_its_stop_cancels_the_remote_task(tmp_path):
    from autobyteus_like import AgentTeam

    marker = tmp_path / "marker"
    served_team = team_file(tmp_path, ["Remote says hi.", "Hello, other user.",
                                       call("wait", seconds=60, marker=str(marker)), "never"])
    store = tmp_path / "served.sessions.db"
    with served(served_team, "--session", "s", "--store", str(store)) as (url, _process):
        calling = tmp_path / "calling.yaml"
        calling.write_text(
            "name: calling\ncoordinator: asker\nmembers:\n"
            f"  - name: asker\n    role: the remote team\n    a2a: {{url: '{url}', "
            "timeout_s: 60}\n")
        team = AgentTeam.from_yaml(calling).start()
        try:
            assert team.run("hello?", timeout=60) == "Remote says hi."
            team.run("and you?", conversation="another user", timeout=60)
            outcome: list[BaseException | str] = []
            asked = threading.Thread(target=lambda: outcome.append(_team_run(team, "wait")))
            asked.start()
            try:
                started = threading.Event()
                _until_started(marker, started)
                assert started.is_set()
                team.stop()  # the caller stops: the remote task is cancelled
            finally:
                asked.join(60)
            assert not asked.is_alive() and not isinstance(outcome[0], str)
        finally:
            team.stop()
        deadline = time.monotonic() + 30  # a file the other process writes
        while marker.read_text() != "cancelled" and time.monotonic() < deadline:
            time.sleep(0.02)
        assert marker.read_text() == "cancelled"
    from autobyteus_like.store import open_store

    opened = open_store(store)
    try:  # each of our conversations was a context of its own over there
        contexts = [info.name for info in opened.sessions() if info.name.startswith("s@")]
        assert len(contexts) == 2
    finally:
        opened.close()


def _team_run(team: Any, message: str) -> BaseException | str:
    try:
        return str(team.run(message, timeout=60))
    except BaseException as exc:
        return exc


def test_an_a2a_member_that_is_not_one_is_refused_naming_why(monkeypatch):
    def member(**fields: object) -> AgentConfig:
        return AgentConfig.model_validate({"name": "expert", **fields})

    with pytest.raises(ValueError, match=r"a2a: url: String should match"):
        member(a2a={"url": "ftp://x"})
    with pytest.raises(ValueError, match="give llm or a2a"):
        member(a2a={"url": "http://127.0.0.1:1/"}, llm={"provider": "scripted",
                                                         "responses": []})
    monkeypatch.delenv("A2A_TOKEN_NOT_SET", raising=False)
    with pytest.raises(ValueError, match="token_env A2A_TOKEN_NOT_SET: the variable is not set"):
        member(a2a={"url": "http://127.0.0.1:1/", "token_env": "A2A_TOKEN_NOT_SET"})
    monkeypatch.setenv("A2A_TOKEN_NOT_SET", TOKEN)
    built = member(a2a={"url": "http://127.0.0.1:1/", "token_env": "A2A_TOKEN_NOT_SET"})
    assert isinstance(built.llm, RemoteA2AAgent) and built.llm.token == TOKEN

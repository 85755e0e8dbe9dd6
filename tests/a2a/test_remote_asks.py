"""A remote A2A member asked as a tool (``ask:NAME``, ``ask:NAME.SKILL``, ``ask:NAME.*``:
team/_remote_asks.py): its answer in invocation order beside an ordinary call, a skill reached,
the depth limit counting it, bad entries located, and a stop cancelling the remote task.
Against a team this project serves over A2A (in this process) and the SDK's own server."""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest

pytest.importorskip("a2a", reason="the A2A tests need autobyteus-like[a2a]")

from a2a.server.agent_execution import RequestContext
from a2a.server.events import EventQueue

from autobyteus_like import AgentTeam, ConfigError, ScriptedLLM, TeamConfig, tool
from autobyteus_like.llm import LLMRequest
from tests.a2a.test_remote_cancel import Stubborn, sdk_server
from tests.a2a.test_remote_skills import two_members
from tests.a2a.test_serve_a2a import served_here


def call(name: str, **arguments: object) -> dict[str, Any]:
    return {"name": name, "arguments": arguments}


def results(request: LLMRequest) -> list[Any]:
    """The results the request's last message shows (the JSON format), in the order given."""
    shown = request.messages[-1].content.splitlines()[1:]
    return [json.loads(line)["tool_result"]["content"] for line in shown]


@tool
def note(text: str) -> str:
    """Note something."""
    return f"noted {text}"


def team_data(url: str, writer: list[Any], tools: list[str], **extra: Any) -> dict[str, Any]:
    """A team as its YAML file reads: a writer (scripted) asking ``experts``, an a2a member."""
    return {"name": "desk", "coordinator": "writer", **extra, "members": [
        {"name": "writer", "tool_format": "json", "llm": ScriptedLLM(writer), "tools": tools},
        {"name": "experts", "role": "answers questions, a team of its own",
         "a2a": {"url": url, "timeout_s": 30}}]}


@pytest.mark.slow  # a served team (in this process)
def test_a_remote_member_and_its_skill_answer_in_order_beside_an_ordinary_call(tmp_path):
    with served_here(two_members(tmp_path)) as url:
        writer = [json.dumps([call("ask_experts", request="2+2?"), call("note", text="x"),
                              call("ask_experts.helper", request="2+2?")]), "done"]
        config = TeamConfig.from_data(team_data(url, writer, ["ask:experts", "note",
                                                              "ask:experts.helper"]),
                                      tools=[note])
        with AgentTeam(config, tools=[note]) as team:
            assert team.run("go", timeout=60) == "done"
        every = TeamConfig.from_data(team_data(url, ["-"], ["ask:experts.*"]))
        with AgentTeam(every) as team:
            taught = sorted(name for name in team.agents["writer"].tools.names()
                            if name.startswith("ask_"))
    llm = config.members[0].llm
    assert isinstance(llm, ScriptedLLM)
    prompt = llm.requests[0].system_prompt
    assert "ask_experts" in prompt and "a team of its own" in prompt  # described by its role
    # the remote's coordinator, the ordinary call, then the skill's member: in the order asked
    assert results(llm.requests[1]) == ["the lead answers", "noted x", "the helper says 4"]
    assert taught == ["ask_experts.helper", "ask_experts.lead"]  # one per skill of its card


def test_the_depth_limit_counts_a_remote_ask_and_bad_entries_are_located():
    # ask_depth 1: the writer asks mid (one level), mid asking the remote would be a second
    mid = {"name": "mid", "role": "asks on", "tool_format": "json", "tools": ["ask:experts"],
           "llm": ScriptedLLM([json.dumps([call("ask_experts", request="?")]), "gave up"])}
    data = team_data("http://127.0.0.1:9/", [json.dumps([call("ask_mid", request="?")]),
                                             "done"], ["ask:mid"], ask_depth=1)
    data["members"].append(mid)
    with AgentTeam(TeamConfig.from_data(data)) as team:
        assert team.run("go", timeout=30) == "done"
    [refused] = results(mid["llm"].requests[1])
    assert refused["code"] == "PERMISSION_DENIED"
    assert "nest 2 calls deep (writer -> mid -> experts)" in refused["message"]
    for entry, problem in [("ask:mid.x", "'mid' is a member of ours"),
                           ("ask:experts.", "name a skill"),
                           ("ask:nobody.x", "names no member")]:
        data = team_data("http://127.0.0.1:9/", ["-"], [entry])
        data["members"].append({**mid, "llm": ScriptedLLM(["-"])})
        with pytest.raises(ConfigError, match=rf"members\[0\]\.tools\[0\]: .*{problem}"):
            TeamConfig.from_data(data)


class Cancelled(Stubborn):
    """Works until cancelled, and says when its cancel came."""

    def __init__(self) -> None:
        super().__init__()
        self.cancelled = threading.Event()

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        self.cancelled.set()
        await super().cancel(context, event_queue)


def test_stopping_the_caller_cancels_the_remote_task():
    executor = Cancelled()
    with sdk_server(executor) as url:
        config = TeamConfig.from_data(team_data(
            url, [json.dumps([call("ask_experts", request="work")]), "never"], ["ask:experts"]))
        team = AgentTeam(config).start()
        try:
            team.send("go")
            assert executor.working.wait(30)  # the remote is working on the writer's call
        finally:
            team.stop()
        assert executor.cancelled.wait(30)  # the stop reached the remote as CancelTask

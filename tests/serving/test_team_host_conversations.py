"""TeamHost's conversations: a face passes ``conversation=ID`` to ``ask``; the asks of one
conversation go one at a time, each answered its own, and conversations run at once."""

from __future__ import annotations

import threading

import anyio
import pytest

from autobyteus_like import BadRequestError
from autobyteus_like.events import AgentEvent
from autobyteus_like.llm import LLMRequest
from autobyteus_like.serving._team_host import TeamHost
from tests.runtime.scripted_teams import member, team_config


def _asked(request: LLMRequest) -> str:
    return next(m.content for m in reversed(request.messages) if m.role == "user")


def test_asks_in_many_conversations_at_once_each_get_their_own_answer():
    """Three asks at once in each of the default conversation, alice's and bob's. The first
    request of alice's and of bob's wait for each other at a barrier: they pass it only if
    the two conversations run at the same time."""
    together = threading.Barrier(2)

    def reply(request: LLMRequest) -> str:
        asked = _asked(request)
        if asked.endswith(" 0") and not asked.startswith("default"):
            together.wait(timeout=30)
        return f"answer to {asked}"

    host = TeamHost(team_config(member("lead", [reply] * 9, tools=[])))
    host.start()
    seen: dict[str | None, list[str]] = {}

    async def report(event: AgentEvent) -> None:
        return None

    async def ask(conversation: str | None, number: int) -> None:
        who = conversation or "default"
        answer = await host.ask(f"{who} {number}", None, report, conversation=conversation)
        seen.setdefault(conversation, []).append(answer)

    async def everyone() -> None:
        async with anyio.create_task_group() as group:
            for number in range(3):
                for conversation in (None, "alice", "bob"):
                    group.start_soon(ask, conversation, number)

    try:
        anyio.run(everyone)
        assert sorted(host.team.conversations) == ["alice", "bob"]
        alice = [m.content for m in host.team.conversation("alice").agents["lead"].history
                 if m.role == "user"]
    finally:
        host.stop()
    for conversation in (None, "alice", "bob"):
        who = conversation or "default"
        assert sorted(seen[conversation]) == [f"answer to {who} {n}" for n in range(3)]
    assert sorted(alice) == ["alice 0", "alice 1", "alice 2"]


def test_an_ask_naming_a_conversation_id_that_is_not_one_is_refused():
    host = TeamHost(team_config(member("lead", ["x"], tools=[])))
    host.start()

    async def report(event: AgentEvent) -> None:
        return None

    try:
        with pytest.raises(BadRequestError, match="printable"):
            anyio.run(lambda: host.ask("hi", None, report, conversation="a\x00b"))
    finally:
        host.stop()


def test_a_conversation_its_last_process_left_waiting_is_refused_then_resumed(tmp_path):
    """A conversation's record left with a call waiting: an ask with a message is refused
    (saying so), and an ask without one goes on with it, in that conversation."""
    from autobyteus_like import AgentTeam, UnfinishedSessionError, tool
    from autobyteus_like.events import ApprovalRequested
    from autobyteus_like.serving import ApprovalPolicy
    from autobyteus_like.store import Session

    ran: list[str] = []

    @tool(requires_approval=True)
    def launch(target: str) -> str:
        """Launch something."""
        ran.append(target)
        return f"launched {target}"

    def config():
        return team_config(member(
            "lead", ['{"name": "launch", "arguments": {"target": "x"}}', "launched it"],
            tools=["launch"], auto_execute_tools=False))

    store = tmp_path / "team.db"
    with Session("chat", store) as session, AgentTeam(config(), tools=[launch],
                                                      session=session) as team:
        events = team.events(conversation="alice")
        team.send("launch it", conversation="alice")
        next(e for e in events if isinstance(e, ApprovalRequested))
        events.close()

    async def report(event: AgentEvent) -> None:
        return None

    with Session("chat", store) as session:
        host = TeamHost(config(), tools=[launch], policy=ApprovalPolicy(["launch"]),
                        session=session)
        host.start()
        try:
            with pytest.raises(UnfinishedSessionError, match="chat@alice"):
                anyio.run(lambda: host.ask("other", None, report, conversation="alice"))
            assert anyio.run(lambda: host.ask(None, None, report,
                                              conversation="alice")) == "launched it"
        finally:
            host.stop()
    assert ran == ["x"]


def test_past_its_most_the_conversation_unused_longest_is_let_go_and_rebuilt(tmp_path):
    """``max_conversations`` is a bound on those open, not on those there are: a new one lets
    the idle one unused longest go; its session record brings it back with its history."""
    from autobyteus_like.store import Session

    def reply(request: LLMRequest) -> str:
        said = [m.content for m in request.messages if m.role == "user"]
        return " | ".join(said)  # the conversation as the model saw it

    session = Session("s", tmp_path / "s.db")
    host = TeamHost(team_config(member("lead", [reply] * 4, tools=[])), session=session,
                    max_conversations=1)
    host.start()

    async def ignore(event: AgentEvent) -> None:
        return None

    async def talk() -> list[str]:
        return [await host.ask(text, None, ignore, conversation=who)
                for who, text in (("a", "a1"), ("b", "b1"), ("a", "a2"))]

    try:
        assert anyio.run(talk) == ["a1", "b1", "a1 | a2"]
        assert host.team.conversations == ["a"]  # b was let go for a
    finally:
        host.stop()
        session.close()

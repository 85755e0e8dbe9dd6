"""A team holds many conversations: callers of one conversation queue in order and each gets
the answer to its own message; different conversations run at once, each with its own
members' histories and its own session record (``NAME@ID``)."""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from autobyteus_like import (
    AgentConfig,
    AgentStoppedError,
    AgentTeam,
    BadRequestError,
    ScriptedLLM,
    TeamConfig,
)
from autobyteus_like.events import ApprovalRequested
from autobyteus_like.llm import LLMRequest
from autobyteus_like.store import Session

CALLERS = 10


def _asked(request: LLMRequest) -> str:
    """The last user message the model was shown."""
    return next(m.content for m in reversed(request.messages) if m.role == "user")


def echo(request: LLMRequest) -> str:
    return f"answer to {_asked(request)}"


def team_config(llm: ScriptedLLM, name: str = "t") -> TeamConfig:
    return TeamConfig(name=name, coordinator="lead", members=[
        AgentConfig(name="lead", llm=llm, tools=["send_message_to"], tool_format="json")])


def test_concurrent_callers_from_threads_each_get_their_own_answer():
    """Ten threads released at once by a barrier, one conversation: each caller gets the
    answer to its own message (before: nine got the last caller's)."""
    barrier = threading.Barrier(CALLERS)
    with AgentTeam(team_config(ScriptedLLM([echo] * CALLERS, chunk_size=4))) as team:
        def caller(index: int) -> str:
            barrier.wait(timeout=30)
            return team.run(f"q{index}", timeout=60)

        with ThreadPoolExecutor(CALLERS) as pool:
            answers = list(pool.map(caller, range(CALLERS)))
        history = [m for m in team.agents["lead"].history if m.role in ("user", "assistant")]
    assert answers == [f"answer to q{index}" for index in range(CALLERS)]
    # one message at a time: each question is followed by its own answer
    pairs = [(history[i].content, history[i + 1].content) for i in range(0, len(history), 2)]
    assert all(answer == f"answer to {question}" for question, answer in pairs)
    assert len(pairs) == CALLERS


def test_concurrent_callers_in_asyncio_each_get_their_own_answer():
    async def main() -> list[str]:
        with AgentTeam(team_config(ScriptedLLM([echo] * CALLERS, chunk_size=4))) as team:
            return list(await asyncio.gather(*(team.arun(f"q{index}", timeout=60)
                                               for index in range(CALLERS))))

    assert asyncio.run(main()) == [f"answer to q{index}" for index in range(CALLERS)]


def test_threads_and_asyncio_and_streams_on_one_conversation_each_get_their_own_answer():
    """run from threads, arun, stream and astream at once, on the default conversation."""
    barrier = threading.Barrier(4)
    llm = ScriptedLLM([echo] * 8, chunk_size=3)
    with AgentTeam(team_config(llm)) as team:
        def in_thread(index: int) -> str:
            barrier.wait(timeout=30)
            return team.run(f"thread {index}", timeout=60)

        def streamed() -> str:
            barrier.wait(timeout=30)
            with team.stream("streamed") as stream:
                text = "".join(stream.text())
                assert text == "answer to streamed"
                return stream.result(timeout=60)

        async def in_loop() -> list[str]:
            barrier.wait(timeout=30)

            async def astreamed() -> str:
                async with team.astream("astreamed") as stream:
                    return await stream.result(timeout=60)

            return list(await asyncio.gather(team.arun("arun", timeout=60), astreamed()))

        with ThreadPoolExecutor(3) as pool:
            threads = [pool.submit(in_thread, 1), pool.submit(in_thread, 2),
                       pool.submit(streamed)]
            looped = asyncio.run(in_loop())
            assert [future.result() for future in threads] == [
                "answer to thread 1", "answer to thread 2", "answer to streamed"]
    assert looped == ["answer to arun", "answer to astreamed"]


def test_conversations_run_at_once_each_with_its_own_members():
    """Each conversation's first request waits at a barrier all of them must reach: they
    can only pass it if the conversations run at the same time. Each conversation's second
    message is answered from its own history only."""
    count = 4
    together = threading.Barrier(count)

    def first(request: LLMRequest) -> str:
        together.wait(timeout=30)
        return echo(request)

    def second(request: LLMRequest) -> str:
        earlier = [m.content for m in request.messages if m.role == "user"]
        return " | ".join(earlier)

    llm = ScriptedLLM([first] * count + [second] * count)
    with AgentTeam(team_config(llm)) as team:
        with ThreadPoolExecutor(count) as pool:
            firsts = list(pool.map(lambda i: team.run(f"hello from {i}", timeout=60,
                                                      conversation=f"user-{i}"), range(count)))
        seconds = [team.run("again", timeout=60, conversation=f"user-{i}")
                   for i in range(count)]
        assert sorted(team.conversations) == [f"user-{i}" for i in range(count)]
        assert not [m for m in team.agents["lead"].history  # the default one: untouched
                    if m.role == "user"]
        lead = team.conversation("user-2").agents["lead"]
        assert lead is not team.conversation("user-1").agents["lead"]
    assert firsts == [f"answer to hello from {i}" for i in range(count)]
    assert seconds == [f"hello from {i} | again" for i in range(count)]


def test_a_caller_who_gave_up_keeps_its_place_until_its_work_is_done():
    """A caller whose run timed out while its call waits for a person: the next caller's
    message waits until that run is quiet, then gets its own answer (not the first's)."""
    from autobyteus_like import tool

    @tool(requires_approval=True)
    def launch(target: str) -> str:
        """Launch something."""
        return f"launched {target}"

    def lead_reply(request: LLMRequest) -> str:
        last = request.messages[-1]
        if last.role == "user" and _asked(request) == "launch it":
            return '{"name": "launch", "arguments": {"target": "rocket"}}'
        return echo(request)

    config = TeamConfig(name="t", coordinator="lead", members=[AgentConfig(
        name="lead", llm=ScriptedLLM([lead_reply] * 3), tools=[launch], tool_format="json",
        auto_execute_tools=False)])
    with AgentTeam(config, tools=[launch]) as team:
        events = team.events()
        with pytest.raises(TimeoutError, match="still busy"):
            team.run("launch it", timeout=0)
        asked = next(e for e in events if isinstance(e, ApprovalRequested))
        with ThreadPoolExecutor(1) as pool:
            second = pool.submit(team.run, "second", 60)
            team.approve(asked.agent, asked.invocation.id)
            assert second.result(timeout=60) == "answer to second"
        events.close()
        history = [m.content for m in team.agents["lead"].history if m.role == "user"]
    assert history == ["launch it", "second"]


def test_a_stopped_team_fails_the_callers_still_waiting_for_their_turn():
    from autobyteus_like import tool

    @tool(requires_approval=True)
    def launch(target: str) -> str:
        """Launch something."""
        return f"launched {target}"

    config = TeamConfig(name="t", coordinator="lead", members=[AgentConfig(
        name="lead", llm=ScriptedLLM(['{"name": "launch", "arguments": {"target": "x"}}']),
        tools=[launch], tool_format="json",
        auto_execute_tools=False)])
    team = AgentTeam(config, tools=[launch]).start()
    events = team.events()
    first = team.caller_turn()  # the first caller's place, held while its call waits
    first.wait(1)
    first.begin(lambda: team.send("launch it"))
    next(e for e in events if isinstance(e, ApprovalRequested))
    with ThreadPoolExecutor(1) as pool:
        waiting = pool.submit(team.run, "second", 60)
        team.stop()
        with pytest.raises(AgentStoppedError):
            waiting.result(timeout=60)
    with pytest.raises(AgentStoppedError):
        first.result(1)
    first.release()


@pytest.mark.parametrize("bad", ["", "   ", "a\nb", "x" * 201, 7])
def test_a_conversation_id_that_is_not_one_is_refused_saying_why(bad):
    with AgentTeam(team_config(ScriptedLLM([echo]))) as team, \
            pytest.raises(BadRequestError, match="conversation id"):
        team.run("hi", conversation=bad)


def test_a_stopped_team_builds_no_conversation():
    team = AgentTeam(team_config(ScriptedLLM([echo])))
    with pytest.raises(AgentStoppedError, match="not running"):
        team.run("hi", conversation="late")


def test_each_conversation_keeps_its_own_session_record_and_resumes_from_it(tmp_path):
    """The default conversation is stored as the session's name, another as NAME@ID; a new
    process goes on with each from its own record."""
    store = tmp_path / "team.db"
    llm = ScriptedLLM([echo] * 2)
    with Session("chat", store) as session, AgentTeam(team_config(llm), session=session) as team:
        assert team.run("for the default", timeout=30) == "answer to for the default"
        assert team.run("for alice", timeout=30, conversation="alice") == "answer to for alice"
        names = sorted(info.name for info in session.store.sessions())
        alice = session.store.history("chat@alice", "lead")
        default = session.store.history("chat", "lead")
    assert names == ["chat", "chat@alice"]
    assert [m.content for m in alice] == ["for alice", "answer to for alice"]
    assert [m.content for m in default] == ["for the default", "answer to for the default"]

    def second(request: LLMRequest) -> str:
        return " | ".join(m.content for m in request.messages if m.role == "user")

    llm = ScriptedLLM([second] * 4)
    with Session("chat", store) as session, AgentTeam(team_config(llm), session=session) as team:
        assert team.run("more", timeout=30, conversation="alice") == "for alice | more"
        assert team.run("more", timeout=30) == "for the default | more"


def test_sessions_list_and_show_name_each_conversations_record(tmp_path, capsys):
    from autobyteus_like.cli import main

    store = tmp_path / "team.db"
    with Session("chat", store) as session, \
            AgentTeam(team_config(ScriptedLLM([echo] * 2)), session=session) as team:
        team.run("hi", timeout=30)
        team.run("from bo", timeout=30, conversation="bo")
    capsys.readouterr()
    assert main(["sessions", "list", "--store", str(store)]) == 0
    listed = sorted(line.split("\t")[0] for line in capsys.readouterr().out.splitlines())
    assert listed == ["chat", "chat@bo"]
    assert main(["sessions", "show", "chat", "--store", str(store)]) == 0
    assert "conversations (each a session): chat@bo" in capsys.readouterr().out
    assert main(["sessions", "show", "chat@bo", "--store", str(store)]) == 0
    shown = capsys.readouterr().out
    assert "from bo" in shown and "answer to from bo" in shown and "answer to hi" not in shown


def test_an_ended_conversation_goes_on_from_its_record_and_a_cap_refuses_one_more(tmp_path):
    from autobyteus_like import RunRefusedError

    def recalled(request: LLMRequest) -> str:
        return " | ".join(m.content for m in request.messages if m.role == "user")

    with Session("chat", tmp_path / "team.db") as session, \
            AgentTeam(team_config(ScriptedLLM([recalled] * 3)), session=session,
                      max_conversations=1) as team:
        assert team.run("one", timeout=30, conversation="ann") == "one"
        with pytest.raises(RunRefusedError, match="max_conversations"):
            team.run("hi", timeout=30, conversation="bo")
        assert team.end_conversation("ann") and not team.end_conversation("ann")
        assert team.conversations == []
        assert team.run("hi", timeout=30, conversation="bo") == "hi"
        team.end_conversation("bo")
        assert team.run("two", timeout=30, conversation="ann") == "one | two"


def test_a_conversation_left_waiting_is_resumed_in_that_conversation_alone(tmp_path):
    """A process stops while alice's call waits for a person: the next process refuses a new
    message in alice's conversation until it is resumed, resumes it there (the call asked
    about again, approved, run), while the default conversation takes messages as before."""
    from autobyteus_like import UnfinishedSessionError, tool

    ran: list[str] = []

    @tool(requires_approval=True)
    def launch(target: str) -> str:
        """Launch something."""
        ran.append(target)
        return f"launched {target}"

    def config() -> TeamConfig:
        return TeamConfig(name="t", coordinator="lead", members=[AgentConfig(
            name="lead", llm=ScriptedLLM(['{"name": "launch", "arguments": {"target": "x"}}',
                                          "launched, as you allowed"]),
            tools=[launch], tool_format="json", auto_execute_tools=False)])

    store = tmp_path / "team.db"
    with Session("chat", store) as session, AgentTeam(config(), tools=[launch],
                                                      session=session) as team:
        events = team.events(conversation="alice")
        team.send("launch it", conversation="alice")
        next(e for e in events if isinstance(e, ApprovalRequested))
        events.close()
    assert ran == []
    with Session("chat", store) as session, AgentTeam(config(), tools=[launch],
                                                      session=session) as team:
        with pytest.raises(UnfinishedSessionError, match="chat@alice"):
            team.run("something else", timeout=30, conversation="alice")
        events = team.events(conversation="alice")
        with ThreadPoolExecutor(1) as pool:
            resumed = pool.submit(team.resume, 60, conversation="alice")
            asked = next(e for e in events if isinstance(e, ApprovalRequested))
            team.approve(asked.agent, asked.invocation.id, conversation="alice")
            assert resumed.result(timeout=60) == "launched, as you allowed"
        events.close()
        assert team.resume(timeout=30) is None  # the default conversation had nothing left
    assert ran == ["x"]


def test_callers_racing_to_a_new_conversation_build_it_once_and_queue_in_it():
    """Eight threads released at once into one conversation nobody used yet: it is built
    once (one member agent, one history holding all eight exchanges, one at a time)."""
    barrier = threading.Barrier(8)
    with AgentTeam(team_config(ScriptedLLM([echo] * 8))) as team:
        def caller(index: int) -> str:
            barrier.wait(timeout=30)
            return team.run(f"q{index}", timeout=60, conversation="shared")

        with ThreadPoolExecutor(8) as pool:
            answers = list(pool.map(caller, range(8)))
        assert team.conversations == ["shared"]
        history = [m.content for m in team.conversation("shared").agents["lead"].history
                   if m.role in ("user", "assistant")]
    assert answers == [f"answer to q{index}" for index in range(8)]
    assert sorted(history[0::2]) == sorted(f"q{index}" for index in range(8))
    assert history[1::2] == [f"answer to {question}" for question in history[0::2]]

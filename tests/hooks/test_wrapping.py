"""Hooks that wrap a model request or a tool call, through the public API: a wrapping hook may
change what is sent, replace the outcome or not call on at all; several wrap in order, the
first outermost; a wrapped call runs on the tool's thread and a wrapped request on the LLM
worker (never on the actor's thread); a hook that raises is named; a hook that only watches
is in no chain."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import pytest

from autobyteus_like import Agent, AgentConfig, AgentHooks, ScriptedLLM, tool
from autobyteus_like.errors import AgentTurnError
from autobyteus_like.hooks import LLMCall, ToolCall, compose
from autobyteus_like.hooks._wrapping import wrappers
from autobyteus_like.llm._messages import LLMChunk, LLMRequest, Message


def call(name: str, **arguments: object) -> str:
    return json.dumps({"name": name, "arguments": arguments})


def results(llm: ScriptedLLM, request: int) -> list[dict[str, Any]]:
    """The tool results request ``request`` carried to the model (json format, as text)."""
    text = llm.requests[request].messages[-1].content
    return [json.loads(line)["tool_result"] for line in text.splitlines()[1:]]


class Threads(AgentHooks):
    """Notes the actor's thread (where watch points run)."""

    def __init__(self) -> None:
        self.actor: set[str] = set()

    def call_running(self, turn: object, call: object) -> None:
        self.actor.add(threading.current_thread().name)

    def request_sent(self, turn: object, messages: object) -> None:
        self.actor.add(threading.current_thread().name)


class Around(AgentHooks):
    """Wraps tool calls and requests, noting the order and the thread."""

    def __init__(self, name: str, seen: list[str]) -> None:
        self.name, self.seen = name, seen
        self.call_threads: set[str] = set()
        self.request_threads: set[str] = set()

    def wrap_tool_call(self, call: ToolCall, call_next: Callable[[ToolCall], Any]) -> Any:
        self.call_threads.add(threading.current_thread().name)
        self.seen.append(f"{self.name}>")
        value = call_next(call)
        self.seen.append(f"<{self.name}")
        return value

    def wrap_model_request(self, call: LLMCall,
                           call_next: Callable[[LLMCall], Iterable[LLMChunk]]
                           ) -> Iterator[LLMChunk]:
        self.request_threads.add(threading.current_thread().name)
        yield from call_next(call)


def test_several_wrap_in_order_the_first_outermost_on_the_tool_s_thread():
    seen: list[str] = []
    body_threads: set[str] = set()

    @tool
    def note(text: str) -> str:
        """Note it."""
        seen.append(f"body {text}")
        body_threads.add(threading.current_thread().name)
        return "noted"

    outer, inner, watcher = Around("a", seen), Around("b", seen), Threads()
    llm = ScriptedLLM([call("note", text="x"), "done"])
    config = AgentConfig(name="w", llm=llm, tools=[note], tool_format="json",
                         hooks=[outer, watcher, inner])
    with Agent(config) as agent:
        assert agent.run("go", timeout=10) == "done"
    assert seen == ["a>", "b>", "body x", "<b", "<a"]
    assert outer.call_threads == inner.call_threads == body_threads  # the call's own
    assert outer.request_threads == inner.request_threads  # the LLM worker's
    assert len(outer.request_threads) == 1 and outer.request_threads != body_threads
    assert watcher.actor and not (outer.call_threads | outer.request_threads) & watcher.actor


class Doubling(AgentHooks):
    """Changes a call's arguments on the way in and its value on the way out."""

    def wrap_tool_call(self, call: ToolCall, call_next: Callable[[ToolCall], Any]) -> Any:
        value = call_next(call.replace(arguments={"text": call.arguments["text"] * 2}))
        return f"{value}!"


def test_a_wrapping_hook_changes_the_arguments_and_replaces_the_value():
    @tool
    def echo(text: str) -> str:
        """Echo it."""
        return text

    llm = ScriptedLLM([call("echo", text="ab"), "done"])
    config = AgentConfig(name="w", llm=llm, tools=[echo], tool_format="json",
                         hooks=[Doubling()])
    with Agent(config) as agent:
        assert agent.run("go", timeout=10) == "done"
    assert [result["content"] for result in results(llm, 1)] == ["abab!"]


class Cached(AgentHooks):
    """Answers a call it has seen from its cache, without calling on."""

    def __init__(self) -> None:
        self.cache: dict[str, Any] = {}

    def wrap_tool_call(self, call: ToolCall, call_next: Callable[[ToolCall], Any]) -> Any:
        key = json.dumps([call.invocation.name, call.arguments], sort_keys=True)
        if key not in self.cache:
            self.cache[key] = call_next(call)
        return self.cache[key]


def test_a_wrapping_hook_that_does_not_call_on_replaces_the_call():
    ran: list[str] = []

    @tool
    def lookup(word: str) -> str:
        """Look it up."""
        ran.append(word)
        return f"{word}: found"

    llm = ScriptedLLM([call("lookup", word="a"), call("lookup", word="a"), "done"])
    config = AgentConfig(name="w", llm=llm, tools=[lookup], tool_format="json",
                         hooks=[Cached()])
    with Agent(config) as agent:
        assert agent.run("go", timeout=10) == "done"
        usage = agent.usage.run
    assert ran == ["a"]  # the second came from the cache
    assert [result["content"] for result in results(llm, 2)] == ["a: found"]
    assert usage.tool_calls == 2  # admitted and made, through the wrapper


class Failing(AgentHooks):
    def wrap_tool_call(self, call: ToolCall, call_next: Callable[[ToolCall], Any]) -> Any:
        call_next(call)
        raise RuntimeError("the cache is full")


class Passing(AgentHooks):
    def wrap_tool_call(self, call: ToolCall, call_next: Callable[[ToolCall], Any]) -> Any:
        return call_next(call)


@pytest.mark.parametrize("asynchronous", [False, True])
def test_a_wrapping_hook_that_raises_is_named_and_a_tool_s_own_failure_is_not(asynchronous):
    if asynchronous:
        @tool
        async def work(fail: bool) -> str:
            """Work."""
            await asyncio.sleep(0)
            if fail:
                raise ValueError("the body failed")
            return "worked"
    else:
        @tool
        def work(fail: bool) -> str:
            """Work."""
            if fail:
                raise ValueError("the body failed")
            return "worked"

    llm = ScriptedLLM([call("work", fail=True), call("work", fail=False), "done"])
    config = AgentConfig(name="w", llm=llm, tools=[work], tool_format="json",
                         hooks=[Passing(), Failing(), Passing()])
    with Agent(config) as agent:
        assert agent.run("go", timeout=10) == "done"
    first, second = results(llm, 1)[0], results(llm, 2)[0]
    assert "Failing" not in json.dumps(first)  # the body's own failure, passed on
    assert first["content"]["message"] == "work raised ValueError: the body failed"
    assert second["content"]["message"] == ("the hook Failing.wrap_tool_call raised "
                                            "RuntimeError: the cache is full")


class Rewriting(AgentHooks):
    """Changes the system prompt of every request, and answers 'ping' itself."""

    def wrap_model_request(self, call: LLMCall,
                           call_next: Callable[[LLMCall], Iterable[LLMChunk]]
                           ) -> Iterable[LLMChunk]:
        last = call.request.messages[-1]
        if last.content == "ping":
            return [LLMChunk(text="pong (from the hook)", final=True)]
        request = call.request
        changed = LLMRequest("be brief", request.messages, request.tools, request.rules)
        return call_next(call.replace(request=changed))


def test_a_wrapping_hook_changes_a_request_or_answers_it_itself():
    llm = ScriptedLLM(["from the model"])  # the hook's answer takes none of the script
    config = AgentConfig(name="w", llm=llm, hooks=[Rewriting()])
    with Agent(config) as agent:
        assert agent.run("ping", timeout=10) == "pong (from the hook)"
        assert llm.requests == []  # not called on: never sent
        assert agent.run("hello", timeout=10) == "from the model"
        usage = agent.usage.run
    assert [request.system_prompt for request in llm.requests] == ["be brief"]
    assert llm.requests[0].messages[-1] == Message("user", "hello")
    assert usage.llm_calls == 2


class Retrying(AgentHooks):
    """Asks again once when a request fails before its first chunk."""

    def __init__(self) -> None:
        self.retried = 0

    def wrap_model_request(self, call: LLMCall,
                           call_next: Callable[[LLMCall], Iterable[LLMChunk]]
                           ) -> Iterator[LLMChunk]:
        try:
            chunks = list(call_next(call))
        except ConnectionError:
            self.retried += 1
            chunks = list(call_next(call))
        yield from chunks


def test_a_wrapping_hook_calls_on_again_and_a_raising_one_is_named():
    attempts: list[int] = []

    def flaky(request: LLMRequest) -> str:
        attempts.append(1)
        if len(attempts) == 1:
            raise ConnectionError("reset by peer")
        return "answered"

    retrying = Retrying()
    llm = ScriptedLLM([flaky, flaky])
    with Agent(AgentConfig(name="w", llm=llm, hooks=[retrying])) as agent:
        assert agent.run("go", timeout=10) == "answered"
    assert retrying.retried == 1

    class Broken(AgentHooks):
        def wrap_model_request(self, call: LLMCall,
                               call_next: Callable[[LLMCall], Iterable[LLMChunk]]
                               ) -> Iterator[LLMChunk]:
            yield from call_next(call)
            raise KeyError("no cache entry")

    llm = ScriptedLLM(["answered"])
    named = r"the hook Broken\.wrap_model_request raised KeyError"
    with Agent(AgentConfig(name="w", llm=llm, hooks=[Passing(), Broken()])) as agent, \
            pytest.raises(AgentTurnError, match=named):
        agent.run("go", timeout=10)


def test_a_hook_that_only_watches_is_in_no_chain():
    watcher, wrapping = Threads(), Around("a", [])
    assert wrappers(compose([watcher]), "wrap_tool_call") == ()
    assert wrappers(compose([watcher]), "wrap_model_request") == ()
    assert wrappers(compose([watcher, wrapping]), "wrap_tool_call") == (
        wrapping.wrap_tool_call,)

"""The turn's steps without an actor: each is called directly and what it asks for (the effects
it yields: events to emit, ``StreamLLM``, ``RunTool``, ``Reply``, ``EndRun``) is read back. One
tool call is followed from the LLM's text to its ``RunTool`` and, with its result, to the next
request carrying it."""

from __future__ import annotations

import dataclasses
import json
from concurrent.futures import Future

import pytest

from autobyteus_like import AgentConfig, ScriptedLLM, ToolRegistry, tool
from autobyteus_like.errors import StrayEventError, UsageLimitExceededError
from autobyteus_like.events import (
    AgentStatus,
    AgentStatusChanged,
    LLMChunkReceived,
    LLMResponseCompleted,
    PendingToolInvocation,
    ToolCallParsed,
    ToolResultReceived,
    TurnCompleted,
    UserMessageReceived,
)
from autobyteus_like.formats._registry import builtin_format
from autobyteus_like.handlers import default_handlers
from autobyteus_like.handlers._context import AgentContext
from autobyteus_like.handlers._effects import EndRun, Reply, RunTool, StreamLLM
from autobyteus_like.handlers._environment import TurnEnvironment
from autobyteus_like.handlers._results_message import results_message
from autobyteus_like.handlers._run_end import end_run
from autobyteus_like.handlers._turn_steps import request_llm, start_turn
from autobyteus_like.hooks import AgentHooks
from autobyteus_like.tools._invocation import ToolInvocation, ToolResult


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def context(hooks: AgentHooks | None = None, max_iterations: int = 5) -> AgentContext:
    config = AgentConfig(name="a", llm=ScriptedLLM([]), tool_format="json",
                         max_iterations=max_iterations)
    return AgentContext(TurnEnvironment(config, ToolRegistry([add]), builtin_format("json"),
                                        "be brief", hooks=hooks or AgentHooks()))


def message(text: str, turn_id: int = 1) -> UserMessageReceived:
    return UserMessageReceived(agent="a", text=text, turn_id=turn_id, reply=Future())


def handle(ctx: AgentContext, event: object) -> list[object]:
    handler = default_handlers().find(type(event))  # type: ignore[arg-type]
    assert handler is not None
    return list(handler.handle(event, ctx) or ())  # type: ignore[arg-type]


def of(kind: type, effects: list[object]) -> list[object]:
    return [effect for effect in effects if isinstance(effect, kind)]


def test_one_tool_call_from_the_llms_text_to_its_run_and_back_to_the_next_request():
    ctx = context()
    opened = list(start_turn(ctx, message("add 2 and 3")))
    [stream] = of(StreamLLM, opened)
    assert (stream.request_no, stream.turn_id) == (1, 1)
    assert stream.request.messages[-1].content == "add 2 and 3"

    text = json.dumps({"name": "add", "arguments": {"a": 2, "b": 3}})
    parsed = handle(ctx, LLMChunkReceived(agent="a", request_no=1, text=text))
    parsed += handle(ctx, LLMResponseCompleted(agent="a", request_no=1))
    [call] = [e.invocation for e in of(ToolCallParsed, parsed)]
    [pending] = of(PendingToolInvocation, parsed)
    assert pending.invocation == call and (call.name, call.arguments) == ("add", {"a": 2, "b": 3})
    assert not of(RunTool, parsed)  # checked first: the call is a pending event

    [run] = of(RunTool, handle(ctx, pending))
    assert (run.invocation, run.tool.name, run.timeout) == (call, "add", 120.0)
    assert (run.context.agent, run.context.invocation_id) == ("a", call.id)
    assert run.bound.a == 2 and run.bound.b == 3  # validated once, handed to the tool as is

    result = ToolResult.success(call, 5)
    back = handle(ctx, ToolResultReceived(agent="a", result=result))
    [again] = of(StreamLLM, back)
    assert again.request_no == 2
    assert again.request.messages[-1] == results_message(ctx.env.format, (call,), (result,))
    assert [e.status for e in of(AgentStatusChanged, back)] == [AgentStatus.THINKING]


def test_an_answer_without_calls_replies_after_the_turns_events_and_starts_the_next_message():
    ctx = context()
    first, second = message("one"), message("two", turn_id=2)
    list(start_turn(ctx, first))
    ctx.waiting.append(second)
    handle(ctx, LLMChunkReceived(agent="a", request_no=1, text="done"))
    effects = handle(ctx, LLMResponseCompleted(agent="a", request_no=1))
    [completed] = of(TurnCompleted, effects)
    [reply] = of(Reply, effects)
    assert (completed.answer, reply.reply, reply.answer, reply.error) == (
        "done", first.reply, "done", None)
    assert not first.reply.done()  # the actor answers, once the events are published
    [stream] = of(StreamLLM, effects)  # the waiting message's turn began
    assert (stream.turn_id, ctx.turn.turn_id) == (2, 2)  # type: ignore[union-attr]
    assert effects.index(completed) < effects.index(reply) < effects.index(stream)


def test_max_iterations_ends_the_turn_with_an_error_reply_and_no_request():
    ctx = context(max_iterations=1)
    list(start_turn(ctx, message("go")))
    effects = list(request_llm(ctx))  # a second request in the same turn
    assert not of(StreamLLM, effects)
    [reply] = of(Reply, effects)
    assert "max_iterations (1) reached" in str(reply.error) and ctx.turn is None


class Refusing(AgentHooks):
    def claim(self, turn, kind):  # type: ignore[no-untyped-def]
        if kind != "llm_calls":
            return None
        return UsageLimitExceededError("run", "max_llm_calls", 0, 1, refused=True)


def test_a_refused_request_is_never_streamed_the_step_asks_to_end_the_run():
    ctx = context(hooks=Refusing())
    effects = list(start_turn(ctx, message("go")))
    assert [type(e) for e in effects] == [EndRun] and ctx.turn is not None
    ended = list(end_run(ctx, effects[0].error))  # what the actor does with it
    replies = of(Reply, ended)
    assert replies[0].error is effects[0].error  # the limit's error wins
    assert ctx.turn is None


def test_a_result_no_call_waits_for_is_a_stray_and_asks_for_nothing():
    ctx = context()
    call = ToolInvocation(id="c9", name="add", arguments={"a": 1, "b": 1})
    with pytest.raises(StrayEventError):
        handle(ctx, ToolResultReceived(agent="a", result=ToolResult.success(call, 2)))


def test_the_environment_is_frozen_and_a_new_one_is_taken_whole():
    ctx = context()
    with pytest.raises(dataclasses.FrozenInstanceError):
        ctx.env.system_prompt = "other"  # type: ignore[misc]
    ctx.use(dataclasses.replace(ctx.env, system_prompt="be thorough"))
    [stream] = of(StreamLLM, list(start_turn(ctx, message("go"))))
    assert stream.request.system_prompt == "be thorough"

"""CallPolicy on a format's parser: refused calls become parse errors in their places; a
required call missing is asked for once per turn."""

from __future__ import annotations

from autobyteus_like.formats import builtin_format
from autobyteus_like.parsers._call_policy import CallPolicy
from autobyteus_like.parsers._parse_events import ParseResult
from autobyteus_like.tools._call_rules import CallRules, ToolChoice
from autobyteus_like.tools._invocation_ids import InvocationIdAllocator
from autobyteus_like.tools._registry import ToolRegistry
from tests.sample_tools import write_file

CALL = '{"name": "write_file", "arguments": {"path": "a", "content": "b"}}'


def reply(policy: CallPolicy, text: str) -> ParseResult:
    parser = policy(ToolRegistry([write_file]), InvocationIdAllocator())
    return ParseResult.from_events(parser.feed(text) + parser.finish())


def test_one_call_only_refuses_the_second_in_its_place():
    policy = CallPolicy(builtin_format("json").parser_factory, CallRules(parallel=False))
    result = reply(policy, f"[{CALL}, {CALL}]")
    assert len(result.invocations) == 1
    [error] = result.errors
    assert error.index == 1 and "parallel_tool_calls: false" in error.message


def test_required_asks_once_then_lets_the_answer_stand_and_resets_after_a_call():
    policy = CallPolicy(builtin_format("json").parser_factory,
                        CallRules(ToolChoice("required")))
    assert reply(policy, "No call.").errors[0].message.startswith("a tool call is required")
    assert reply(policy, "Still none.").errors == []  # the answer stands; the turn ends
    assert reply(policy, "Next turn, none.").errors  # asked again in the next turn
    assert reply(policy, CALL).invocations
    assert reply(policy, "The answer.").errors == []  # the turn made its call

"""Composing hooks: none is the no-op base, one is itself, several run in order, each point
calling only the hooks that implement it; the first verdict that ends the run wins."""

from __future__ import annotations

import pytest

from autobyteus_like.errors import UsageLimitExceededError
from autobyteus_like.hooks import AgentHooks, CompositeHooks, compose


class Recorder(AgentHooks):
    def __init__(self, name: str, seen: list[str]) -> None:
        self.name, self.seen = name, seen

    def turn_started(self, turn: object, messages: object) -> None:
        self.seen.append(f"{self.name}:started")

    def close(self) -> None:
        self.seen.append(f"{self.name}:closed")


class Judge(AgentHooks):
    def __init__(self, error: UsageLimitExceededError | None) -> None:
        self.error = error

    def verdict(self) -> UsageLimitExceededError | None:
        return self.error


class Durable(AgentHooks):
    def admit_early(self, turn: object, call: object) -> bool:
        return False


def test_no_hooks_is_the_base_that_does_nothing():
    hooks = compose([None])
    assert type(hooks) is AgentHooks
    assert hooks.verdict() is None and hooks.admit_early(object(), object()) is True


def test_one_hook_is_used_as_it_is():
    seen: list[str] = []
    only = Recorder("a", seen)
    assert compose([None, only]) is only


def test_several_run_in_order_and_only_where_they_act():
    seen: list[str] = []
    hooks = compose([Recorder("a", seen), Judge(None), Recorder("b", seen)])
    assert isinstance(hooks, CompositeHooks)
    hooks.turn_started(object(), [])
    hooks.close()
    hooks.call_running(object(), object())  # nobody implements it: the base's no-op
    assert seen == ["a:started", "b:started", "a:closed", "b:closed"]
    assert "call_running" not in vars(hooks)


def test_the_first_verdict_that_ends_the_run_wins():
    first = UsageLimitExceededError("agent 'x'", "max_llm_calls", 1, 2)
    second = UsageLimitExceededError("team 't'", "max_tool_calls", 1, 2)
    assert compose([Judge(None), Judge(first), Judge(second)]).verdict() is first
    assert compose([Judge(None), Recorder("a", [])]).verdict() is None


def test_a_durable_hook_makes_calls_wait_for_the_whole_response():
    assert compose([Recorder("a", []), Durable()]).admit_early(object(), object()) is False
    assert compose([Recorder("a", []), Judge(None)]).admit_early(object(), object()) is True


def test_the_old_whole_response_flag_still_holds_calls_and_says_it_is_deprecated():
    with pytest.warns(DeprecationWarning, match="admit_early"):
        class Old(AgentHooks):
            needs_whole_response = True

    class Streaming:
        response_done = False

    class Whole:
        response_done = True

    assert compose([Old()]).admit_early(Streaming(), object()) is False
    assert compose([Recorder("a", []), Old()]).admit_early(Whole(), object()) is True

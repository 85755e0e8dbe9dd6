"""ToolContext is built once per call (a fast_frozen value): each has its own cancel flag and
default sandbox, and it stays frozen, comparable, replaceable and picklable (Ray sends it)."""

from __future__ import annotations

import dataclasses
import pickle

import pytest

from autobyteus_like.tools._context import CancelFlag, ToolContext
from autobyteus_like.tools._sandbox import SandboxPolicy


def test_each_context_gets_its_own_flag_and_the_default_sandbox() -> None:
    first, second = ToolContext(), ToolContext(agent="a", invocation_id="call_1")
    assert first.cancelled is not second.cancelled
    assert isinstance(first.cancelled, CancelFlag) and not first.cancelled.is_set()
    first.cancelled.set()
    assert first.cancelled.is_set() and not second.cancelled.is_set()
    assert first.sandbox == SandboxPolicy() and (first.agent, first.invocation_id) == ("", "")
    assert (second.agent, second.invocation_id) == ("a", "call_1")


def test_a_given_flag_and_sandbox_are_kept() -> None:
    flag, policy = CancelFlag(), SandboxPolicy(roots=["/tmp"])
    context = ToolContext("a", "call_1", policy, flag)
    assert context.cancelled is flag and context.sandbox is policy


def test_it_stays_a_frozen_value() -> None:
    context = ToolContext(agent="a", invocation_id="call_1")
    assert context == ToolContext(agent="a", invocation_id="call_1")  # the flag is not compared
    assert context != ToolContext(agent="b", invocation_id="call_1")
    with pytest.raises(dataclasses.FrozenInstanceError):
        context.agent = "b"  # type: ignore[misc]
    moved = dataclasses.replace(context, invocation_id="call_2")
    assert (moved.agent, moved.invocation_id) == ("a", "call_2")
    copied = pickle.loads(pickle.dumps(context))
    assert copied == context and type(copied) is ToolContext
    assert repr(context).startswith("ToolContext(agent='a', invocation_id='call_1'")
    with pytest.raises(TypeError):
        ToolContext(unknown=1)  # type: ignore[call-arg]

"""CallBuilder.build validates an invocation as ``ToolInvocation(...)`` does (it calls the
model's validator directly, without the model's Python ``__init__`` in between)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from autobyteus_like.parsers._call_builder import CallBuilder
from autobyteus_like.tools._invocation import ToolInvocation
from autobyteus_like.tools._invocation_ids import InvocationIdAllocator


def test_a_built_call_is_the_invocation_the_model_makes() -> None:
    builder = CallBuilder("json", None, InvocationIdAllocator())
    arguments = {"path": "a.txt", "count": 2}
    built = builder.build("read", arguments, "call_7", why="  to see it ")
    assert built == ToolInvocation(id="call_7", name="read", arguments=arguments,
                                   why="to see it")
    assert type(built) is ToolInvocation and built.model_fields_set == {
        "id", "name", "arguments", "why"}
    assert built.arguments is not arguments  # validated into its own dict, as before
    arguments["path"] = "changed"
    assert built.arguments["path"] == "a.txt"


def test_a_call_the_model_refuses_is_refused_with_the_same_error() -> None:
    builder = CallBuilder("json", None, InvocationIdAllocator())
    with pytest.raises(ValidationError) as built:
        builder.build("", {"a": 1}, "call_1")
    with pytest.raises(ValidationError) as direct:
        ToolInvocation(id="call_1", name="", arguments={"a": 1})
    assert built.value.errors() == direct.value.errors()
    assert built.value.title == direct.value.title == "ToolInvocation"

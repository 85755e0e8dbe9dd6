"""The YAML scripted provider holds a recorded reply whole: native calls with their ids, usage
and finish reason."""

from __future__ import annotations

import threading

import pytest
from pydantic import ValidationError

from autobyteus_like.llm._messages import LLMRequest
from autobyteus_like.llm._spec import LLMSpec


def test_a_scripted_reply_streams_its_native_calls_ids_and_usage():
    spec = LLMSpec.model_validate({"provider": "scripted", "responses": [
        {"text": "Adding.", "tool_calls": [
            {"id": "call_7", "name": "add", "arguments": '{"a": 2, "b": 3}'},
            {"id": "call_8", "name": "add", "arguments": {"a": 1, "b": 1}}],
         "input_tokens": 12, "output_tokens": 5, "cached_input_tokens": 4,
         "finish_reason": "tool_calls"}]})
    chunks = list(spec.build().stream(LLMRequest("", ()), threading.Event()))
    calls = [call for chunk in chunks for call in chunk.tool_calls]
    assert [(c.id, c.name, c.arguments) for c in calls] == [
        ("call_7", "add", '{"a": 2, "b": 3}'), ("call_8", "add", '{"a": 1, "b": 1}')]
    assert "".join(chunk.text for chunk in chunks) == "Adding."
    last = chunks[-1]
    assert (last.usage.input_tokens, last.usage.output_tokens,
            last.usage.cached_input_tokens) == (12, 5, 4)
    assert last.finish_reason == "tool_calls"


def test_a_call_without_a_name_is_refused():
    with pytest.raises(ValidationError, match="name"):
        LLMSpec.model_validate({"provider": "scripted", "responses": [
            {"tool_calls": [{"id": "x", "arguments": "{}"}]}]})

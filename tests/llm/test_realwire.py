"""Every stream recorded from a real provider, replayed byte for byte (status, content type and
encoding as recorded) from a local server into the provider on its official SDK, and checked
against what the recording itself says (``tests/llm/realwire.py`` reads it without the SDK).

The recordings live outside the repository (``shared/realwire`` next to it, or
``$AUTOBYTEUS_REALWIRE``); without them this module is skipped.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field

import pytest

from autobyteus_like.llm import LLM, LLMError, LLMRequest, Message, NativeToolCall, TokenUsage
from tests.llm.realwire import Fixture, expected, fixtures, normal_finish, realwire_dir
from tests.llm.realwire_clients import declared, provider_llm
from tests.llm.replay_server import Recorded, ReplayServer

ROOT = realwire_dir()
pytestmark = pytest.mark.skipif(
    ROOT is None, reason="the recorded traffic (shared/realwire next to the repository, or "
                         "$AUTOBYTEUS_REALWIRE) is not here")
FIXTURES = fixtures(ROOT) if ROOT is not None else []


@dataclass
class Outcome:
    """Everything one replayed stream produced."""

    text: str = ""
    calls: list[NativeToolCall] = field(default_factory=list)
    usage: TokenUsage | None = None
    finish: str | None = None
    provider_finish: str | None = None
    error: Exception | None = None


def replay(llm: LLM, request: LLMRequest) -> Outcome:
    outcome = Outcome()
    try:
        for chunk in llm.stream(request, threading.Event()):
            outcome.text += chunk.text
            outcome.calls.extend(chunk.tool_calls)
            outcome.usage = chunk.usage or outcome.usage
            if chunk.finish_reason is not None:
                outcome.finish, outcome.provider_finish = (chunk.finish_reason,
                                                           chunk.provider_finish_reason)
    except Exception as exc:
        outcome.error = exc
    return outcome


def test_every_recording_is_in_the_index():
    assert ROOT is not None
    on_disk = {str(path.relative_to(ROOT)) for path in (ROOT / "fixtures").rglob("*")
               if path.is_file()}
    assert on_disk == {fixture.entry["file"] for fixture in FIXTURES}
    assert len(FIXTURES) == 34


@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda f: f.name)
def test_a_recorded_stream_comes_out_as_the_recording_says(fixture: Fixture):
    want = expected(fixture)
    if fixture.pinned_tools is not None:  # the reader above agrees with the index
        assert [call.name for call in want.calls] == fixture.pinned_tools
    request = LLMRequest("", (Message("user", "hi"),), tools=declared(fixture.pinned_tools or []))
    reply = Recorded(fixture.raw, fixture.entry["status"], fixture.entry["content_type"],
                     fixture.headers)
    with ReplayServer([reply]) as server:
        got = replay(provider_llm(fixture.provider, server), request)

    if want.failed:
        assert isinstance(got.error, LLMError), got.error
        assert got.error.status == want.error_status
        assert got.error.server_message == want.error_message
        assert (got.error.provider, got.error.model) == (fixture.provider, "recorded")
        assert got.error.__cause__ is not None  # the SDK's own exception
        assert want.error_message is not None and want.error_message in str(got.error)
        return
    assert got.error is None, got.error
    assert got.text == want.text
    assert [(c.id, c.name) for c in got.calls] == [(c.id, c.name) for c in want.calls]
    assert [json.loads(c.arguments) for c in got.calls] == [
        json.loads(c.arguments) for c in want.calls]
    assert got.usage == want.usage
    assert got.provider_finish == want.finish
    assert got.finish == normal_finish(fixture.provider, want.finish, bool(want.calls))

"""The Anthropic SDK's deprecation warning is passed on as the SDK's (located in its code, not
ours), once, however many requests follow."""

from __future__ import annotations

import warnings

import pytest

anthropic = pytest.importorskip("anthropic")

from autobyteus_like.llm import LLMRequest, Message  # noqa: E402
from autobyteus_like.llm._anthropic import AnthropicLLM  # noqa: E402
from tests.llm.provider_helpers import collect  # noqa: E402
from tests.llm.replay_server import ReplayServer, Stream, fixture  # noqa: E402

DEPRECATED = "claude-opus-4-5-20251101"


def test_a_deprecated_model_is_warned_of_once_as_the_sdk_s():
    from anthropic.resources.messages import messages

    if DEPRECATED not in messages.DEPRECATED_MODELS:
        pytest.skip(f"this anthropic SDK does not deprecate {DEPRECATED}")
    request = LLMRequest("", (Message("user", "hi"),))
    replies = [Stream(fixture("anthropic/text"), named=True, done=False) for _ in range(2)]
    with ReplayServer(replies) as server, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        llm = AnthropicLLM(DEPRECATED, base_url=server.base_url.removesuffix("/v1"),
                           api_key="sk-ant-test", prompt_cache=False)
        collect(llm, request)
        collect(llm, request)
    [said] = [w for w in caught if issubclass(w.category, DeprecationWarning)
              and DEPRECATED in str(w.message)]
    assert "anthropic" in said.filename and "autobyteus_like" not in said.filename

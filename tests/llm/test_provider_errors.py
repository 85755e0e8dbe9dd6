"""A provider's failure is one ``LLMError`` a person can act on: provider, model, HTTP status,
attempts and the server's own words, with the SDK's exception as its cause; and retries go
exactly as far as they should."""

from __future__ import annotations

import socket
import threading

import anthropic
import google.genai.errors
import openai
import pytest

from autobyteus_like.llm import LLMError, LLMRequest, Message
from autobyteus_like.llm._anthropic import AnthropicLLM
from autobyteus_like.llm._gemini import GeminiLLM
from autobyteus_like.llm._openai import OpenAILLM
from tests.llm.provider_helpers import PROVIDERS, collect
from tests.llm.replay_server import Failure, Hang, Recorded, ReplayServer, Stream, fixture

HELLO = LLMRequest("", (Message("user", "hi"),))
LIMITED = Failure(429, {"error": {"message": "Rate limit reached for gpt-4o-mini",
                                  "type": "requests", "code": "rate_limit_exceeded"}},
                  {"retry-after-ms": "5"})


def closed_port() -> int:
    """A local port nothing listens on (connecting to it is refused)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def failure_of(llm, request: LLMRequest = HELLO) -> LLMError:
    with pytest.raises(LLMError) as failed:
        collect(llm, request)
    return failed.value


def test_rate_limits_retried_to_the_end_say_so():
    with ReplayServer([LIMITED] * 3) as server:
        error = failure_of(OpenAILLM("gpt-4o-mini", base_url=server.base_url, api_key="k",
                                     max_retries=2))
    assert str(error) == ("openai gpt-4o-mini: HTTP 429 rate limited after 3 attempts: "
                          "Rate limit reached for gpt-4o-mini")
    assert (error.provider, error.model, error.status, error.attempts) == (
        "openai", "gpt-4o-mini", 429, 3)
    assert error.server_message == "Rate limit reached for gpt-4o-mini"
    assert isinstance(error.__cause__, openai.RateLimitError)
    assert len(server.requests) == 3


def test_a_refused_connection_names_the_address():
    url = f"http://127.0.0.1:{closed_port()}/v1"
    error = failure_of(OpenAILLM("gpt-4o-mini", base_url=url, api_key="k", max_retries=1))
    assert str(error) == (f"openai gpt-4o-mini: connection refused after 2 attempts: "
                          f"{url}/chat/completions")
    assert (error.status, error.attempts, error.server_message) == (None, 2, None)
    assert isinstance(error.__cause__, openai.APIConnectionError)


def test_client_errors_are_not_retried_and_say_what_to_check():
    missing = Failure(404, {"type": "error", "error": {"type": "not_found_error",
                                                       "message": "model: claude-sonet-4-5"}})
    with ReplayServer([missing, missing]) as server:
        root = server.base_url.removesuffix("/v1")
        error = failure_of(AnthropicLLM("claude-sonet-4-5", base_url=root, api_key="k"))
    assert str(error) == ("anthropic claude-sonet-4-5: HTTP 404 not found (check the model "
                          "name and base_url): model: claude-sonet-4-5")
    assert (error.status, error.attempts) == (404, 1) and len(server.requests) == 1
    assert isinstance(error.__cause__, anthropic.NotFoundError)


def test_the_server_decides_with_x_should_retry_and_a_long_retry_after():
    no_retry = Failure(503, {"error": {"message": "down for maintenance"}},
                       {"x-should-retry": "false"})
    later = Failure(429, {"error": {"message": "come back in an hour"}}, {"retry-after": "3600"})
    with ReplayServer([no_retry, later, LIMITED]) as server:
        first = failure_of(OpenAILLM("m", base_url=server.base_url, api_key="k", max_retries=3))
        second = failure_of(OpenAILLM("m", base_url=server.base_url, api_key="k", max_retries=3))
    assert (first.status, first.attempts) == (503, 1)
    assert (second.status, second.attempts, second.server_message) == (
        429, 1, "come back in an hour")  # reported now rather than waiting an hour
    assert len(server.requests) == 2


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_server_that_never_answers_times_out(provider: str):
    with ReplayServer([Hang()]) as server:
        llm = PROVIDERS[provider](server, timeout_s=0.3, max_retries=0)
        error = failure_of(llm)
    root = server.base_url.removesuffix("/v1")
    assert str(error).startswith(f"{provider} {llm.model}: timed out: {root}/")
    assert (error.status, error.attempts) == (None, 1)


def test_gemini_errors_are_llm_errors_too():
    overloaded = Failure(503, {"error": {"code": 503, "message": "The model is overloaded.",
                                         "status": "UNAVAILABLE"}})
    with ReplayServer([overloaded, overloaded]) as server:
        root = server.base_url.removesuffix("/v1") + "/"
        error = failure_of(GeminiLLM("gemini-2.5-flash", base_url=root, api_key="k",
                                     max_retries=1, retry_initial_delay_s=0.01))
    assert str(error).startswith("gemini gemini-2.5-flash: HTTP 503 service unavailable after "
                                 "2 attempts: The model is overloaded.")
    assert (error.status, error.attempts) == (503, 2)
    assert isinstance(error.__cause__, google.genai.errors.ServerError)


def test_an_error_inside_a_stream_is_an_llm_error_with_the_status_it_names():
    chunks = [*fixture("openai/text")[:2],
              {"error": {"message": "Token limit reached", "code": 400}}]
    with ReplayServer([Stream(chunks)]) as server:
        error = failure_of(OpenAILLM("m", base_url=server.base_url, api_key="k"))
    assert str(error) == "openai m: error inside the stream (status 400): Token limit reached"
    assert (error.status, error.attempts) == (400, 1)


def test_a_malformed_stream_is_an_llm_error_not_a_json_traceback():
    with ReplayServer([Recorded(b"data: {not json\n\n")]) as server:
        error = failure_of(OpenAILLM("m", base_url=server.base_url, api_key="k"))
    assert str(error).startswith("openai m: unexpected JSONDecodeError: ")
    assert isinstance(error.__cause__, ValueError)


NOT_A_STREAM = {
    "a web page": Recorded(b"<html><body>Welcome to nginx!</body></html>\n",
                           content_type="text/html"),
    "a whole JSON completion": Recorded(
        b'{"id": "x", "choices": [{"message": {"content": "hi"}}]}',
        content_type="application/json"),
}


@pytest.mark.parametrize("body", NOT_A_STREAM)
@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_base_url_that_is_not_the_api_is_an_error_not_an_empty_answer(provider: str,
                                                                         body: str):
    with ReplayServer([NOT_A_STREAM[body]]) as server:
        error = failure_of(PROVIDERS[provider](server, max_retries=0))
    size = len(NOT_A_STREAM[body].body)
    assert str(error).endswith(
        f": HTTP 200 ended after {size} bytes without a stream event: a server that cannot "
        "stream this request fails so after its headers (its log says why), and so does a "
        "base_url that is not this provider's API")
    assert error.status == 200


def test_gemini_reading_a_web_page_is_an_error_too():
    with ReplayServer([NOT_A_STREAM["a web page"]]) as server:
        error = failure_of(PROVIDERS["gemini"](server, max_retries=0))
    assert "Welcome to nginx!" in str(error)


def test_an_anthropic_stream_that_ends_before_its_message_is_an_error():
    cut = fixture("anthropic/text")[:5]  # text came, then the connection closed cleanly
    with ReplayServer([Stream(cut, named=True, done=False)]) as server:
        error = failure_of(PROVIDERS["anthropic"](server))
    assert str(error) == ("anthropic claude-sonnet-5: the stream ended before the message did "
                          "(no stop_reason; cut off on the way?)")


def test_a_prompt_gemini_blocks_is_reported_as_content_filter():
    blocked = [{"promptFeedback": {"blockReason": "PROHIBITED_CONTENT"},
                "usageMetadata": {"promptTokenCount": 12, "totalTokenCount": 12}}]
    with ReplayServer([Stream(blocked, done=False)]) as server:
        chunks = list(PROVIDERS["gemini"](server).stream(HELLO, threading.Event()))
    assert [(c.finish_reason, c.provider_finish_reason) for c in chunks] == [
        ("content_filter", "PROHIBITED_CONTENT")]

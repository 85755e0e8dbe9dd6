"""Reading what an SDK raised: the server's retry wishes, whatever shape its headers take."""

from __future__ import annotations

import email.utils
import time

import httpx2
import openai
import pytest

from autobyteus_like.llm._sdk_failures import read_stainless

REQUEST = httpx2.Request("POST", "http://127.0.0.1:9/v1/chat/completions?key=secret")


def limited(headers: dict[str, str], status: int = 429) -> openai.APIStatusError:
    response = httpx2.Response(status, headers=headers, request=REQUEST)
    return openai.APIStatusError("limited", response=response, body={"message": "slow down"})


@pytest.mark.parametrize(("headers", "wait"), [
    ({"retry-after-ms": "250"}, 0.25),
    ({"retry-after": "3"}, 3.0),
    ({"retry-after": "soon"}, None),  # unreadable: the ordinary backoff applies
    ({"retry-after-ms": "NaN-ish"}, None),
    ({}, None),
])
def test_retry_after_in_its_shapes(headers: dict[str, str], wait: float | None):
    failure = read_stainless(openai, limited(headers))
    assert failure.retry_after_s == wait
    assert (failure.status, failure.server_message, failure.retryable) == (
        429, "slow down", True)
    assert failure.url == "http://127.0.0.1:9/v1/chat/completions"  # no query: it may hold a key


def test_retry_after_as_an_http_date():
    later = email.utils.formatdate(time.time() + 30, usegmt=True)
    wait = read_stainless(openai, limited({"retry-after": later})).retry_after_s
    assert wait is not None and 25 < wait <= 30


def test_the_server_overrides_the_status_rule_both_ways():
    assert read_stainless(openai, limited({"x-should-retry": "true"}, 400)).retryable
    assert not read_stainless(openai, limited({"x-should-retry": "false"}, 503)).retryable
    assert not read_stainless(openai, limited({}, 400)).retryable

"""ConnectionWatch and the request hook every provider's httpx client carries, on a real
httpx2 client against a real local server."""

from __future__ import annotations

import httpx2
import pytest

from autobyteus_like.errors import LLMError
from autobyteus_like.llm._cancellation import Cancellation
from autobyteus_like.llm._connection_watch import ConnectionWatch, client_options
from tests.llm.replay_server import Hang, Recorded, ReplayServer


def test_once_cancelled_a_watched_request_is_never_sent():
    cancel = Cancellation()
    watch = ConnectionWatch(cancel)
    cancel.set()
    with ReplayServer([Hang()]) as server, httpx2.Client(**client_options()) as client, \
            watch.active(), pytest.raises(LLMError, match="cancelled before this request"):
        client.post(f"{server.base_url}/chat/completions", json={})
    assert server.requests == []


def test_requests_keep_no_idle_connection_and_unwatched_ones_pass():
    cancel = Cancellation()
    cancel.set()  # set, but no watch is active: the hook leaves the request alone
    with ReplayServer([Recorded(b"{}", content_type="application/json")]) as server, \
            httpx2.Client(**client_options()) as client:
        assert client.post(f"{server.base_url}/x", json={}).status_code == 200
    # a pooled connection would be reused with no event showing its socket
    assert server.headers[0]["connection"] == "close"


def test_a_finished_call_leaves_nothing_registered_with_the_agents_cancellation():
    cancel = Cancellation()  # lives as long as the agent: many calls
    for _ in range(3):
        watch = ConnectionWatch(cancel)
        with ReplayServer([Recorded(b"{}", content_type="application/json")]) as server, \
                httpx2.Client(**client_options()) as client, watch.active():
            client.post(f"{server.base_url}/x", json={})
        assert len(cancel._callbacks) == 1  # the connection was watched...
        watch.close()
    assert cancel._callbacks == []  # ...and forgotten: else this would grow with every call

"""Stop means stop, on the provider side: a cancelled call returns promptly whatever it
was doing (waiting for response headers, between chunks, in a retry backoff; over plain HTTP
or TLS), no request is sent after the cancellation, and no thread is left behind."""

from __future__ import annotations

import shutil
import ssl
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from autobyteus_like.llm import LLM, LLMRequest, Message
from autobyteus_like.llm._cancellation import Cancellation
from tests.llm.provider_helpers import PROVIDERS, openai_on
from tests.llm.replay_server import Failure, Hang, ReplayServer, Stream, fixture

HELLO = LLMRequest("", (Message("user", "hi"),))
PATIENT = {"timeout_s": 30.0, "max_retries": 3}
"""Settings under which the old code would block for minutes."""
PROMPT_S = 10.0
"""A cut is prompt within this: a quiet machine takes milliseconds, a loaded one (two cores
shared by many processes) a few seconds; waiting out ``timeout_s`` or a 30 s backoff takes
30 s or more."""


def first_text_then_quiet(provider: str, quiet_until: threading.Event) -> Stream:
    """The provider's stream up to its first text, then silence with the connection open."""
    return {
        "openai": Stream(fixture("openai/text")[:2], stall=quiet_until),
        "anthropic": Stream(fixture("anthropic/text")[:4], named=True, stall=quiet_until),
        "gemini": Stream(fixture("gemini/text")[:1], stall=quiet_until),
    }[provider]


class StreamThread:
    """Consumes ``llm.stream`` on its own thread, as the agent's LLM worker does."""

    def __init__(self, llm: LLM, cancel: threading.Event) -> None:
        self.texts: list[str] = []
        self.error: BaseException | None = None
        self.first_text = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(llm, cancel),
                                        name="test-stream")
        self._thread.start()

    def _run(self, llm: LLM, cancel: threading.Event) -> None:
        try:
            for chunk in llm.stream(HELLO, cancel):
                if chunk.text:
                    self.texts.append(chunk.text)
                    self.first_text.set()
        except BaseException as exc:
            self.error = exc

    def ends_within(self, seconds: float) -> float:
        """Join the thread; how long it took (the thread must be gone)."""
        started = time.perf_counter()
        self._thread.join(seconds)
        assert not self._thread.is_alive(), f"the stream still runs after {seconds} s"
        return time.perf_counter() - started


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_request_waiting_for_headers_is_cut_and_not_retried(provider: str):
    cancel = Cancellation()
    with ReplayServer([Hang(), Hang()]) as server:
        running = StreamThread(PROVIDERS[provider](server, **PATIENT), cancel)
        assert server.arrived.acquire(timeout=60)  # the request is in; no headers will come
        cancel.set()
        took = running.ends_within(PROMPT_S)
        requests = len(server.requests)
    assert took < PROMPT_S
    assert running.error is None and running.texts == []  # stopping is not an error
    assert requests == 1  # no retry started after the cut


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_stream_quiet_between_chunks_is_cut(provider: str):
    cancel, stalled = Cancellation(), threading.Event()
    try:
        with ReplayServer([first_text_then_quiet(provider, stalled)]) as server:
            running = StreamThread(PROVIDERS[provider](server, **PATIENT), cancel)
            assert running.first_text.wait(60)
            cancel.set()
            took = running.ends_within(PROMPT_S)
            stalled.set()
    finally:
        stalled.set()
    assert took < PROMPT_S and running.error is None and running.texts


class WaitSignallingCancellation(Cancellation):
    """A Cancellation that says when someone starts waiting on it (the retry backoff)."""

    def __init__(self) -> None:
        super().__init__()
        self.waited_on = threading.Event()

    def wait(self, timeout: float | None = None) -> bool:
        self.waited_on.set()
        return super().wait(timeout)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_retry_backoff_ends_at_the_cancellation(provider: str):
    limited = Failure(429, {"error": {"code": 429, "message": "slow down"}},
                      {"retry-after": "30"})  # the server asks for 30 s; within reason
    cancel = WaitSignallingCancellation()
    with ReplayServer([limited, limited]) as server:
        running = StreamThread(PROVIDERS[provider](server, **PATIENT), cancel)
        assert cancel.waited_on.wait(60)
        cancel.set()
        took = running.ends_within(PROMPT_S)
        requests = len(server.requests)
    assert took < PROMPT_S and running.error is None and requests == 1


def test_nothing_is_sent_once_cancelled():
    cancel = Cancellation()
    cancel.set()
    with ReplayServer([Hang()]) as server:
        assert list(openai_on(server).stream(HELLO, cancel)) == []
    assert server.requests == []


def self_signed(directory: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 and its key, made with the openssl command."""
    cert, key = directory / "cert.pem", directory / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                    "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True)
    return cert, key


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl command")
@pytest.mark.parametrize("provider", PROVIDERS)
def test_over_tls_the_connection_is_cut_too(provider: str, tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch):
    # TLS moves the socket's descriptor to a new socket object: cutting the TCP one would
    # do nothing. Real providers are all https.
    cert, key = self_signed(tmp_path)
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))  # the client trusts the test certificate
    tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    tls.load_cert_chain(cert, key)
    cancel = Cancellation()
    make: Callable[..., LLM] = PROVIDERS[provider]
    with ReplayServer([Hang()], tls=tls) as server:
        assert server.base_url.startswith("https://")
        running = StreamThread(make(server, **PATIENT), cancel)
        assert server.arrived.acquire(timeout=60)
        cancel.set()
        took = running.ends_within(PROMPT_S)
    assert took < PROMPT_S and running.error is None

"""ProviderCall: one streamed request to a provider's SDK, done the way every provider needs it.

- Cancellable at any moment: its connections are watched (``ConnectionWatch``), so a
  cancellation cuts a request still waiting for response headers as well as a stream.
- Retried while no response has begun, by ``RetryPolicy`` (the SDKs' own retries are turned
  off: their backoff sleeps cannot be interrupted), and never after a cancellation.
- Failing only with ``LLMError`` (provider, model, status, attempts, server message; the SDK's
  exception as ``__cause__``). A cancelled call ends quietly instead.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator
from types import TracebackType
from typing import Any, TypeVar

from autobyteus_like.errors import LLMError
from autobyteus_like.llm._connection_watch import ConnectionWatch
from autobyteus_like.llm._retry_policy import RetryPolicy
from autobyteus_like.llm._sdk_failures import Failure, to_llm_error

__all__ = ["ProviderCall"]

T = TypeVar("T")


class ProviderCall:
    """``with ProviderCall(...) as call:`` then ``stream = call.open(start)`` (None when
    cancelled) and ``for item in call.iterate(stream)``."""

    def __init__(
        self,
        provider: str,
        model: str,
        cancel: threading.Event,
        policy: RetryPolicy,
        read_failure: Callable[[Exception], Failure],
    ) -> None:
        self.provider = provider
        self.model = model
        self.cancel = cancel
        self.policy = policy
        self.read_failure = read_failure
        self.attempts = 0
        self.failed_before_events = False
        """Whether the stream failed (an error event, or an end) before its first event: a
        server that cannot stream this request, which an unstreamed request may still serve."""
        self._watch = ConnectionWatch(cancel)
        self._streams: list[Any] = []

    def __enter__(self) -> ProviderCall:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        try:
            for stream in self._streams:
                close = getattr(stream, "close", None)
                if close is not None:
                    close()
        finally:
            self._watch.close()

    def open(self, start: Callable[[], T]) -> T | None:
        """Run ``start`` (the SDK call that sends the request) until it succeeds or fails for
        good; None if the call was cancelled first."""
        while not self.cancel.is_set():
            self.attempts += 1
            try:
                with self._watch.active():
                    return start()
            except Exception as exc:
                if self.cancel.is_set():
                    return None  # the failure is the cut; stopping is not an error
                failure = self._read(exc)
                delay = (self.policy.delay_s(self.attempts, failure.retry_after_s)
                         if failure.retryable else None)
                if delay is None:
                    raise self._error(failure) from exc
                if self.cancel.wait(delay):
                    return None
        return None

    def iterate(self, stream: Iterable[T]) -> Iterator[T]:
        """The items of an opened stream (closed when the call ends); ends quietly once
        cancelled; a failure inside it is an ``LLMError``."""
        self._streams.append(stream)
        return self._items(iter(stream), stream)

    def failure(self, reason: str) -> LLMError:
        """The error for a response the SDK accepted but the provider's protocol does not."""
        return self._error(Failure(reason))

    def _items(self, items: Iterator[T], stream: object) -> Iterator[T]:
        count = 0
        while not self.cancel.is_set():
            try:
                with self._watch.active():  # a later request (google-genai continuations)
                    item = next(items)
            except StopIteration:
                if count == 0:  # every provider's stream has at least one event
                    self.failed_before_events = True
                    raise self._error(_empty_stream(stream)) from None
                return
            except Exception as exc:
                if self.cancel.is_set():
                    return
                self.failed_before_events = count == 0
                raise self._error(self._read(exc)) from exc
            count += 1
            yield item

    def _read(self, exc: Exception) -> Failure:
        try:
            return self.read_failure(exc)
        except Exception:  # reading a strange error must not hide the error itself
            return Failure(f"unexpected {type(exc).__name__}", server_message=str(exc) or None)

    def _error(self, failure: Failure) -> LLMError:
        return to_llm_error(failure, self.provider, self.model, self.attempts)


def _empty_stream(stream: object) -> Failure:
    """What is known of a response that ended before its first stream event: its status and
    how many bytes came (a server failing after its headers, or not this provider's API)."""
    response = getattr(stream, "response", None)
    status = getattr(response, "status_code", None)
    received = getattr(response, "num_bytes_downloaded", None)
    said = f"HTTP {status}" if isinstance(status, int) else "the response"
    size = f" after {received} bytes" if isinstance(received, int) else ""
    return Failure(f"{said} ended{size} without a stream event: a server that cannot stream "
                   "this request fails so after its headers (its log says why), and so does a "
                   "base_url that is not this provider's API",
                   status=status if isinstance(status, int) else None)

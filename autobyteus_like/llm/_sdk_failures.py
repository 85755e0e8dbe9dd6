"""What went wrong in a provider call, read from whatever the SDK raised into one ``Failure``,
and the ``LLMError`` a person can act on.

OpenAI and Anthropic share one SDK design (``APIStatusError`` with the response,
``APIConnectionError`` around the httpx error, ``APIError`` for an error inside a stream);
google-genai raises its ``APIError`` (with ``code``) or the httpx error itself.
"""

from __future__ import annotations

import email.utils
import time
from dataclasses import dataclass
from http import HTTPStatus
from types import ModuleType
from typing import Any

from autobyteus_like.errors import LLMError

__all__ = ["Failure", "read_genai", "read_stainless", "to_llm_error"]

_PHRASES = {
    401: "unauthorized (check the API key)",
    403: "forbidden (check the API key's permissions)",
    404: "not found (check the model name and base_url)",
    429: "rate limited",
    529: "overloaded",
}


@dataclass(frozen=True)
class Failure:
    """One failed attempt, in the terms a retry decision and an error message need."""

    reason: str
    """Short and plain: "HTTP 429 rate limited", "connection refused", "timed out"."""
    status: int | None = None
    """The HTTP status, or the status an error inside a stream names (None: no response)."""
    server_message: str | None = None
    url: str | None = None
    retryable: bool = False
    retry_after_s: float | None = None
    """The delay the server asked for, if it did."""


def to_llm_error(failure: Failure, provider: str, model: str, attempts: int) -> LLMError:
    """``openai gpt-4o: HTTP 429 rate limited after 4 attempts: <what the server said>``."""
    after = f" after {attempts} attempts" if attempts > 1 else ""
    detail = failure.server_message or failure.url
    message = f"{provider} {model}: {failure.reason}{after}" + (f": {detail}" if detail else "")
    return LLMError(message, provider=provider, model=model, status=failure.status,
                    attempts=attempts, server_message=failure.server_message)


def read_stainless(sdk: ModuleType, exc: Exception) -> Failure:
    """An exception of the openai or anthropic SDK (``sdk`` is the module)."""
    url = _url(getattr(exc, "request", None))
    if isinstance(exc, sdk.APIStatusError) and exc.status_code >= 400:
        return _status_failure(exc.status_code, exc.response.headers, _message(exc.body), url)
    if isinstance(exc, sdk.APITimeoutError):
        return Failure("timed out", url=url, retryable=True)
    if isinstance(exc, sdk.APIConnectionError):
        return Failure(_cause_text(exc) or "connection error", url=url, retryable=True)
    if isinstance(exc, sdk.APIError):  # an error event inside a stream that began well
        body = getattr(exc, "body", None)
        return _stream_failure(_code(body), _message(body) or exc.message, url)
    return _unexpected(exc)


def read_genai(errors: ModuleType, httpx_modules: list[ModuleType], exc: Exception) -> Failure:
    """An exception of google-genai (``errors`` is ``google.genai.errors``), or a network
    error of httpx (any of ``httpx_modules``: httpx2, httpx), which it lets through."""
    if isinstance(exc, errors.APIError):
        response = getattr(exc, "response", None)
        headers = getattr(response, "headers", None) or {}
        url = _url(getattr(response, "request", None))
        if isinstance(exc.code, int) and exc.code >= 400:
            return _status_failure(exc.code, headers, exc.message, url)
        return _stream_failure(exc.code, exc.message, url)
    if isinstance(exc, tuple(module.TransportError for module in httpx_modules)):
        url = _url(_request_of(exc))
        if isinstance(exc, tuple(module.TimeoutException for module in httpx_modules)):
            return Failure("timed out", url=url, retryable=True)
        return Failure(_cause_text(exc) or "connection error", url=url, retryable=True)
    return _unexpected(exc)


def _status_failure(status: int, headers: Any, message: str | None, url: str | None) -> Failure:
    try:
        phrase = _PHRASES.get(status) or HTTPStatus(status).phrase.lower()
    except ValueError:
        phrase = "error"
    should_retry = headers.get("x-should-retry")
    retryable = (should_retry == "true" if should_retry in ("true", "false")
                 else status in (408, 409, 429) or status >= 500)
    return Failure(f"HTTP {status} {phrase}", status=status, server_message=message, url=url,
                   retryable=retryable, retry_after_s=_retry_after(headers))


def _stream_failure(code: Any, message: str | None, url: str | None) -> Failure:
    status = code if isinstance(code, int) and not isinstance(code, bool) else None
    reason = "error inside the stream" + (f" (status {status})" if status else "")
    return Failure(reason, status=status, server_message=message, url=url)


def _unexpected(exc: Exception) -> Failure:
    """Anything else the SDK raised (a malformed stream, a response it could not read)."""
    return Failure(f"unexpected {type(exc).__name__}", server_message=str(exc) or None)


def _retry_after(headers: Any) -> float | None:
    """``retry-after-ms`` (OpenAI, Anthropic) or ``retry-after`` (seconds or an HTTP date)."""
    try:
        if (millis := headers.get("retry-after-ms")) is not None:
            return float(millis) / 1000
        value = headers.get("retry-after")
        if value is None:
            return None
        try:
            return float(value)
        except ValueError:
            when = email.utils.parsedate_to_datetime(value)
            return max(0.0, when.timestamp() - time.time())
    except (TypeError, ValueError):
        return None  # an unreadable header: fall back to backoff


def _message(body: Any) -> str | None:
    """``error.message`` (or ``message``) of an error body; a text body as it is."""
    if isinstance(body, dict):
        error = body.get("error", body)
        message = error.get("message") if isinstance(error, dict) else error
        return message if isinstance(message, str) and message else None
    if isinstance(body, str):
        return body.strip() or None
    return None


def _code(body: Any) -> Any:
    """The status an error body names (Groq ``status_code``, OpenRouter ``code``)."""
    if not isinstance(body, dict):
        return None
    error = body.get("error", body)
    if not isinstance(error, dict):
        return None
    return error.get("status_code", error.get("code"))


def _cause_text(exc: BaseException) -> str:
    """What the network said, from the innermost cause: "connection refused", "server
    disconnected without sending a response."."""
    seen: set[int] = set()
    current: BaseException | None = exc
    text = ""
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, OSError) and current.strerror:
            return current.strerror.lower()
        if str(current) and current is not exc:
            text = str(current)
        current = current.__cause__ or current.__context__
    return text[:1].lower() + text[1:]


def _request_of(exc: Exception) -> Any:
    try:
        return getattr(exc, "request", None)
    except RuntimeError:  # httpx raises when the error has no request
        return None


def _url(request: Any) -> str | None:
    """The request's URL without its query (which may carry a key)."""
    url = getattr(request, "url", None)
    return None if url is None else str(url).split("?", 1)[0]

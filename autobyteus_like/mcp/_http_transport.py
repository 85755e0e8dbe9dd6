"""The HTTP transports' byte cap: what an HTTP server sends is bounded before it is parsed.

The SDK reads a JSON reply whole (``aread``) and parses it, and its SSE parser fails the whole
stream when one event is too big (for the older SSE transport, that ends the session). Here the
httpx transport under the SDK's client watches the bytes: a JSON body over ``max_bytes`` is
counted to its end but never kept, and the SDK is handed the JSON-RPC error for the request it
answered (the POST's own id); in an event stream, each event over ``max_bytes`` is skipped the
same way and replaced by one small ``message`` event carrying that error. The call ends at once
with a TOOL_ERROR naming the size, as on stdio; the connection and every other call go on.
Replies are asked for uncompressed, so what is counted is what would be parsed.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx2
from loguru import logger

from autobyteus_like.mcp._message_cap import HEAD_BYTES, id_in, too_large_error

__all__ = ["SDK_SSE_EVENT_BYTES", "CappedTransport", "capped_http_client"]

SDK_SSE_EVENT_BYTES = 1024 * 1024
"""The SDK's own bound on one event of the older SSE transport (not configurable there): on
that transport the cap is at most this, so an event never reaches the SDK's limit."""


def _line_end(chunk: bytes, start: int) -> int:
    """Where the next CR or LF is in ``chunk`` from ``start`` (-1: none); memchr-fast."""
    lf, cr = chunk.find(b"\n", start), chunk.find(b"\r", start)
    return lf if cr < 0 else cr if lf < 0 else min(lf, cr)


def _request_id(request: httpx2.Request) -> Any:
    """The id of the JSON-RPC request a POST carries (None for anything else)."""
    if request.method != "POST":
        return None
    try:
        body = json.loads(request.content)
    except (ValueError, httpx2.RequestNotRead):
        return None
    return body.get("id") if isinstance(body, dict) and "method" in body else None


class _CappedBody(httpx2.AsyncByteStream):
    """A JSON reply: passed on whole when within the cap, else the request's error answer."""

    def __init__(self, inner: httpx2.AsyncByteStream, cap: int, request_id: Any) -> None:
        self._inner, self._cap, self._request_id = inner, cap, request_id

    async def __aiter__(self) -> AsyncIterator[bytes]:
        kept = bytearray()
        head = b""
        size = 0
        async for chunk in self._inner:
            size += len(chunk)
            if size <= self._cap:
                kept += chunk
            elif not head:  # over the cap: from here on only counted
                head = bytes((kept + chunk)[:HEAD_BYTES])
                kept = bytearray()
        if size <= self._cap:
            yield bytes(kept)
            return
        logger.debug("an MCP server's JSON reply of {} bytes was over the cap", size)
        request_id = self._request_id if self._request_id is not None else id_in(head)
        yield too_large_error(request_id, size, self._cap).model_dump_json(
            by_alias=True, exclude_unset=True).encode()

    async def aclose(self) -> None:
        await self._inner.aclose()


class _CappedEvents(httpx2.AsyncByteStream):
    """An event stream: each event is passed on when it ends; one over the cap is skipped
    (only counted) and a ``message`` event with the error answer takes its place."""

    def __init__(self, inner: httpx2.AsyncByteStream, cap: int, request_id: Any) -> None:
        self._inner, self._cap, self._request_id = inner, cap, request_id
        self._event = bytearray()
        self._skipped = 0  # bytes of the oversized event so far (0: not skipping)
        self._head = b""
        self._line = 0  # bytes of the current line so far, its end not counted
        self._after_cr = False  # the last chunk ended in CR: an LF now ends no new line

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self._inner:
            for event in self._feed(chunk):
                yield event
        if self._event and not self._skipped:
            yield bytes(self._event)

    def _feed(self, chunk: bytes) -> list[bytes]:
        done: list[bytes] = []
        start = 0
        if self._after_cr and chunk.startswith(b"\n"):
            self._take(chunk[:1])
            start = 1
        self._after_cr = False
        while (end := _line_end(chunk, start)) >= 0:
            after = end + 2 if chunk.startswith(b"\r\n", end) else end + 1
            self._line += end - start
            self._take(chunk[start:after])
            start = after
            if self._line == 0:  # a blank line: the event is complete
                done.extend(self._complete())
            self._line = 0
            self._after_cr = chunk[end] == 13 and after == len(chunk)  # CR, LF may follow
        self._line += len(chunk) - start
        self._take(chunk[start:])
        return done

    def _take(self, piece: bytes) -> None:
        if self._skipped:
            self._skipped += len(piece)
            return
        self._event += piece
        if len(self._event) > self._cap:
            self._head, self._skipped = bytes(self._event[:HEAD_BYTES]), len(self._event)
            self._event = bytearray()

    def _complete(self) -> list[bytes]:
        if not self._skipped:
            event, self._event = bytes(self._event), bytearray()
            return [event]
        size, self._skipped = self._skipped, 0
        logger.debug("an MCP server's event of {} bytes was over the cap", size)
        if b'"method"' in self._head:  # a request or notification of the server's: dropped
            return []
        found = id_in(self._head)
        request_id = found if found is not None else self._request_id
        if request_id is None:
            return []
        error = too_large_error(request_id, size, self._cap).model_dump_json(
            by_alias=True, exclude_unset=True)
        return [f"event: message\ndata: {error}\n\n".encode()]

    async def aclose(self) -> None:
        await self._inner.aclose()


class CappedTransport(httpx2.AsyncBaseTransport):
    """Wraps an httpx transport so that no reply message over ``cap`` bytes reaches the SDK."""

    def __init__(self, cap: int, inner: httpx2.AsyncBaseTransport | None = None) -> None:
        self._cap = cap
        self._inner = inner or httpx2.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        request.headers["accept-encoding"] = "identity"
        response = await self._inner.handle_async_request(request)
        kind = response.headers.get("content-type", "").lower()
        capped: type[_CappedBody | _CappedEvents]
        if kind.startswith("text/event-stream"):
            capped = _CappedEvents
        elif kind.startswith("application/json"):
            capped = _CappedBody
        else:
            return response
        assert isinstance(response.stream, httpx2.AsyncByteStream)
        headers = [(k, v) for k, v in response.headers.raw if k.lower() != b"content-length"]
        return httpx2.Response(response.status_code, headers=headers,
                               stream=capped(response.stream, self._cap, _request_id(request)),
                               extensions=response.extensions)

    async def aclose(self) -> None:
        await self._inner.aclose()


def capped_http_client(cap: int, headers: dict[str, str] | None = None,
                       timeout: httpx2.Timeout | None = None, auth: httpx2.Auth | None = None
                       ) -> httpx2.AsyncClient:
    """The SDK's ``create_mcp_http_client`` (its timeouts), reading through the byte cap."""
    from mcp.shared._httpx_utils import MCP_DEFAULT_SSE_READ_TIMEOUT, MCP_DEFAULT_TIMEOUT

    return httpx2.AsyncClient(
        headers=headers, auth=auth, transport=CappedTransport(cap),
        timeout=timeout or httpx2.Timeout(MCP_DEFAULT_TIMEOUT, read=MCP_DEFAULT_SSE_READ_TIMEOUT))

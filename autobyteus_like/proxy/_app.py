"""The proxy's web app (Starlette): ``POST /v1/chat/completions`` (streamed and not) and
``GET /v1/models``, in front of one OpenAI-compatible upstream.

A request with tools goes through ``reply_chunks`` in the proxy's format; one without passes
through untouched (its bytes, and the upstream's answer, status and all). The upstream's errors
come back with their status. An optional bearer token; at most ``max_concurrency`` requests at
once (more get 429); bodies up to ``max_body_bytes`` (more get 413)."""

from __future__ import annotations

import contextlib
import hmac
import json
import threading
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from typing import Any

import anyio
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from autobyteus_like.errors import BadRequestError, LLMError, MalformedCallError
from autobyteus_like.llm._base import LLM
from autobyteus_like.llm._messages import LLMChunk
from autobyteus_like.proxy._chat_request import chat_request
from autobyteus_like.proxy._chat_response import ChunkWriter, completion
from autobyteus_like.proxy._pipeline import reply_chunks
from autobyteus_like.store._model_formats import ModelFormats

__all__ = ["ProxySettings", "build_proxy_app"]


@dataclass
class ProxySettings:
    """How the proxy serves: its upstream, the format it teaches, its limits."""

    upstream: str
    """The upstream's base URL (``http://127.0.0.1:8080/v1``)."""
    tool_format: str = "auto"
    provider: str = "openai"
    """The upstream's provider name (the ``model_formats`` table's key: ``llamacpp`` ...)."""
    token: str | None = None
    upstream_key: str | None = None
    max_concurrency: int = 8
    max_body_bytes: int = 4 * 1024 * 1024
    reask: bool = False
    manifest: str = "full"
    """``compact``: text formats taught by the short manifest and a shown exchange (small
    models follow a shown reply where they copy a long schema)."""
    timeout_s: float = 300.0
    formats: ModelFormats = field(default_factory=ModelFormats.cached)


def _error(status: int, message: str, kind: str) -> JSONResponse:
    return JSONResponse({"error": {"message": message, "type": kind, "code": status}},
                        status_code=status)


def _sse(data: dict[str, Any]) -> bytes:
    return f"data: {json.dumps(data, ensure_ascii=False)}\n\n".encode()


_END = object()


def _next(chunks: Iterator[LLMChunk]) -> Any:
    return next(chunks, _END)


class _Upstreams:
    """One upstream LLM per (model, temperature, max_tokens), shared by the requests."""

    def __init__(self, settings: ProxySettings) -> None:
        self.settings = settings
        self._lock = threading.Lock()
        self._made: dict[tuple[str, Any, Any], LLM] = {}

    def get(self, body: dict[str, Any]) -> LLM:
        from autobyteus_like.llm._openai import OpenAILLM

        model = str(body.get("model") or "")
        if not model:
            raise BadRequestError("model: required")
        temperature = body.get("temperature")
        max_tokens = body.get("max_completion_tokens") or body.get("max_tokens")
        key = (model, temperature, max_tokens)
        with self._lock:
            if key not in self._made:
                if len(self._made) >= 64:
                    self._made.clear()
                self._made[key] = OpenAILLM(
                    model, provider=self.settings.provider, base_url=self.settings.upstream,
                    api_key=self.settings.upstream_key or "not-needed",
                    temperature=temperature if isinstance(temperature, int | float) else None,
                    max_tokens=max_tokens if isinstance(max_tokens, int) else None,
                    timeout_s=self.settings.timeout_s, max_retries=0)
            return self._made[key]


def build_proxy_app(settings: ProxySettings) -> Starlette:
    """The app serving ``settings``."""
    import httpx2

    upstreams = _Upstreams(settings)
    client = httpx2.AsyncClient(timeout=settings.timeout_s)
    slots = threading.Semaphore(settings.max_concurrency)
    base = settings.upstream.rstrip("/")

    def headers() -> dict[str, str]:
        key = settings.upstream_key
        return {"Authorization": f"Bearer {key}"} if key else {}

    def refused(request: Request) -> Response | None:
        if settings.token is None:
            return None
        given = request.headers.get("authorization", "")
        if hmac.compare_digest(given.encode(), f"Bearer {settings.token}".encode()):
            return None
        return _error(401, "a bearer token is required (Authorization: Bearer TOKEN)",
                      "unauthorized")

    async def body_of(request: Request) -> bytes:
        declared = request.headers.get("content-length")
        if declared is not None and declared.isdigit() and \
                int(declared) > settings.max_body_bytes:
            raise BadRequestError(f"the body is over {settings.max_body_bytes} bytes", 413)
        raw = bytearray()
        async for piece in request.stream():
            raw.extend(piece)
            if len(raw) > settings.max_body_bytes:
                raise BadRequestError(f"the body is over {settings.max_body_bytes} bytes",
                                        413)
        return bytes(raw)

    async def models(request: Request) -> Response:
        if (answer := refused(request)) is not None:
            return answer
        try:
            upstream = await client.get(f"{base}/models", headers=headers())
        except httpx2.HTTPError as exc:
            return _error(502, f"the upstream {base} cannot be reached: {exc}", "upstream_error")
        return Response(upstream.content, upstream.status_code,
                        media_type=upstream.headers.get("content-type", "application/json"))

    async def passed_through(raw: bytes) -> Response:
        request = client.build_request("POST", f"{base}/chat/completions", content=raw,
                                       headers={**headers(),
                                                "Content-Type": "application/json"})
        try:
            upstream = await client.send(request, stream=True)
        except httpx2.HTTPError as exc:
            return _error(502, f"the upstream {base} cannot be reached: {exc}", "upstream_error")

        async def relayed() -> AsyncIterator[bytes]:
            try:
                async for piece in upstream.aiter_raw():
                    yield piece
            finally:
                await upstream.aclose()

        return StreamingResponse(relayed(), upstream.status_code, media_type=upstream.headers.get(
            "content-type", "application/json"))

    async def chat(request: Request) -> Response:
        if (answer := refused(request)) is not None:
            return answer
        if not slots.acquire(blocking=False):
            return _error(429, f"the proxy serves {settings.max_concurrency} requests at once "
                               "(--max-concurrency); try again", "rate_limit")
        handed_over = False
        try:
            raw = await body_of(request)
            try:
                body = json.loads(raw)
            except ValueError:
                raise BadRequestError("the body is not JSON") from None
            if not isinstance(body, dict):
                raise BadRequestError("the body must be a JSON object")
            if not body.get("tools"):
                return await passed_through(raw)
            llm_request = chat_request(body)
            cancel = threading.Event()
            chunks = reply_chunks(llm_request, settings.tool_format, upstreams.get(body),
                                  settings.formats, cancel, reask=settings.reask,
                                  compact=settings.manifest == "compact")
            first = await anyio.to_thread.run_sync(_next, chunks)
            model = str(body["model"])
            if not body.get("stream"):
                rest = await anyio.to_thread.run_sync(list, chunks)
                return JSONResponse(completion(model, [] if first is _END else [first, *rest]))
            handed_over = True
            include = bool((body.get("stream_options") or {}).get("include_usage"))
            return StreamingResponse(_streamed(ChunkWriter(model, include_usage=include),
                                               first, chunks, cancel, slots),
                                     media_type="text/event-stream")
        except BadRequestError as exc:
            return _error(exc.status, str(exc), "invalid_request_error")
        except MalformedCallError as exc:
            return _error(502, exc.message, "malformed_tool_call")
        except LLMError as exc:
            return _error(exc.status or 502, exc.message, "upstream_error")
        finally:
            if not handed_over:
                slots.release()

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        try:
            yield
        finally:
            await client.aclose()

    return Starlette(routes=[Route("/v1/chat/completions", chat, methods=["POST"]),
                             Route("/v1/models", models, methods=["GET"])],
                     lifespan=lifespan)


async def _streamed(writer: ChunkWriter, first: Any, chunks: Iterator[LLMChunk],
                    cancel: threading.Event, slots: threading.Semaphore) -> AsyncIterator[bytes]:
    """The SSE stream; a failure after the first byte is an ``error`` event; a client that
    goes away cuts the upstream request."""
    try:
        yield _sse(writer.first())
        item = first
        while item is not _END:
            for data in writer.of(item):
                yield _sse(data)
            try:
                item = await anyio.to_thread.run_sync(_next, chunks)
            except LLMError as exc:  # a MalformedCallError too
                yield _sse({"error": {"message": exc.message, "code": exc.status or 502}})
                return
        for data in writer.last():
            yield _sse(data)
        yield b"data: [DONE]\n\n"
    finally:
        cancel.set()
        slots.release()

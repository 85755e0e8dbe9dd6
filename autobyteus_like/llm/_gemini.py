"""GeminiLLM: Gemini models on the official google-genai SDK's streaming API.

The SDK is an optional extra, imported only when such an LLM is made. A ``ProviderCall``
retries 408/409/429/5xx and connection errors with backoff (``max_retries``, from
``retry_initial_delay_s``), cuts the connection when cancelled (google-genai builds its httpx
client from our ``client_args``, so the request hook sees its connections too), and turns
failures into ``LLMError``. Requests time out after ``timeout_s``; google-genai sets that one
timeout on every phase, so a TCP connect that hangs is bounded by it too.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Iterator
from types import ModuleType
from typing import Any

from autobyteus_like.llm import _finish_reasons as finish_reasons
from autobyteus_like.llm._base import LLM
from autobyteus_like.llm._connection_watch import client_options
from autobyteus_like.llm._gemini_wire import (
    arguments_text,
    encode_contents,
    encode_rules,
    encode_tools,
)
from autobyteus_like.llm._messages import LLMChunk, LLMRequest, NativeToolCall, TokenUsage
from autobyteus_like.llm._provider_call import ProviderCall
from autobyteus_like.llm._provider_setup import import_sdk, prepare
from autobyteus_like.llm._providers import LLMProvider
from autobyteus_like.llm._retry_policy import RetryPolicy
from autobyteus_like.llm._sdk_failures import read_genai
from autobyteus_like.llm._wire_names import WireNames

__all__ = ["GeminiLLM"]


class GeminiLLM(LLM):
    """A Gemini model. Its default tool format is ``gemini`` JSON; ``native`` uses function
    declarations and function responses."""

    provider = LLMProvider.GEMINI
    follows_response_schema = True

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        api_key_env: str | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
        timeout_s: float = 60.0,
        max_retries: int = 3,
        retry_initial_delay_s: float = 1.0,
    ) -> None:
        key, genai = prepare("gemini", key=api_key, key_variable=api_key_env or "GEMINI_API_KEY",
                             key_required=True, sdk="google.genai", package="google-genai",
                             extra="gemini")
        types = import_sdk("google.genai.types", "google-genai", "gemini", "Gemini")
        errors = import_sdk("google.genai.errors", "google-genai", "gemini", "Gemini")
        self.model = model
        self._types = types
        self._retry = RetryPolicy(max_retries, initial_delay_s=retry_initial_delay_s)
        httpx_modules = _httpx_modules()
        self._read_failure = lambda exc: read_genai(errors, httpx_modules, exc)
        options = types.HttpOptions(  # no retry_options: ProviderCall retries, cancellably
            base_url=base_url, timeout=int(timeout_s * 1000), client_args=client_options(),
        )
        self._client = genai.Client(api_key=key, http_options=options)
        self._generation: dict[str, Any] = {}
        if temperature is not None:
            self._generation["temperature"] = temperature
        if max_tokens is not None:
            self._generation["max_output_tokens"] = max_tokens

    def stream(self, request: LLMRequest, cancel: threading.Event) -> Iterator[LLMChunk]:
        names = WireNames(tool.name for tool in request.tools)
        config: dict[str, Any] = dict(self._generation)
        if request.system_prompt:
            config["system_instruction"] = request.system_prompt
        if request.tools:
            config["tools"] = encode_tools(request, names)
            config["automatic_function_calling"] = {"disable": True}
            config["tool_config"] = encode_rules(request.rules, names)
        if request.response_schema is not None:
            config["response_mime_type"] = "application/json"
            config["response_json_schema"] = request.response_schema
        contents = encode_contents(request, names)

        def start() -> _FirstChunkRead:
            return _FirstChunkRead(iter(self._client.models.generate_content_stream(
                model=self.model, contents=contents,
                config=self._types.GenerateContentConfig(**config),
            )))

        usage, finish, blocked, made_calls = None, None, None, False
        with ProviderCall(self.provider.value, self.model, cancel, self._retry,
                          self._read_failure) as call:
            stream = call.open(start)
            if stream is None:
                return
            for chunk in call.iterate(stream):
                for candidate in chunk.candidates or ():
                    parts = candidate.content.parts if candidate.content else None
                    for part in parts or ():
                        if part.text and not part.thought:
                            yield LLMChunk(text=part.text)
                        if part.function_call is not None:
                            made_calls = True
                            function = part.function_call
                            yield LLMChunk(tool_calls=(NativeToolCall(
                                function.id, names.name(function.name or ""),
                                arguments_text(function.args),
                            ),))
                    if candidate.finish_reason is not None:
                        finish = _enum_value(candidate.finish_reason)
                if chunk.usage_metadata is not None:
                    usage = _usage(chunk.usage_metadata)
                feedback = chunk.prompt_feedback
                if feedback is not None and feedback.block_reason is not None:
                    blocked = _enum_value(feedback.block_reason)  # the prompt itself, refused
            if cancel.is_set():
                return
            normal = (finish_reasons.CONTENT_FILTER if blocked
                      else finish_reasons.gemini(finish, made_calls))
            yield LLMChunk(usage=usage, finish_reason=normal,
                           provider_finish_reason=blocked or finish)


class _FirstChunkRead:
    """google-genai's stream with its first chunk read already: the SDK sends the request only
    when its generator is first advanced, and sending belongs to the retried part of a call."""

    def __init__(self, chunks: Iterator[Any]) -> None:
        self._chunks = chunks
        self._first = next(chunks, None)

    def __iter__(self) -> Iterator[Any]:
        if self._first is not None:
            yield self._first
        yield from self._chunks

    def close(self) -> None:
        close = getattr(self._chunks, "close", None)
        if close is not None:
            close()


def _usage(metadata: Any) -> TokenUsage:
    """Gemini counts thinking apart from the answer (``thoughts_token_count``) and tool-use
    prompts apart from the prompt; the common meaning includes both."""
    thoughts = metadata.thoughts_token_count
    return TokenUsage(
        (metadata.prompt_token_count or 0) + (metadata.tool_use_prompt_token_count or 0),
        (metadata.candidates_token_count or 0) + (thoughts or 0),
        reasoning_tokens=thoughts, cached_input_tokens=metadata.cached_content_token_count,
    )


def _enum_value(value: Any) -> str:
    """A google-genai enum member (or a plain string) as the wire's text."""
    return str(getattr(value, "value", value))


def _httpx_modules() -> list[ModuleType]:
    """google-genai lets httpx's network errors through unwrapped, from whichever of httpx2
    and httpx it was given."""
    found = []
    for name in ("httpx2", "httpx"):
        try:
            found.append(importlib.import_module(name))
        except ImportError:
            continue
    return found

"""GeminiLLM: Gemini models on the official google-genai SDK's streaming API.

The SDK is an optional extra, imported only when such an LLM is made. Retries with backoff on
429/5xx use the SDK's retry options; requests time out after ``timeout_s``. Cancelling stops at
the next chunk: google-genai does not expose its HTTP response, so a read blocked between
chunks cannot be cut short the way the OpenAI and Anthropic providers do (it ends at the
timeout).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

from autobyteus_like.llm.base import LLM
from autobyteus_like.llm.gemini_wire import arguments_text, encode_contents, encode_tools
from autobyteus_like.llm.messages import LLMChunk, LLMRequest, NativeToolCall, TokenUsage
from autobyteus_like.llm.provider_setup import api_key as api_key_value
from autobyteus_like.llm.provider_setup import import_sdk
from autobyteus_like.llm.wire_names import WireNames
from autobyteus_like.providers import LLMProvider

__all__ = ["GeminiLLM"]

_RETRIED = [408, 429, 500, 502, 503, 504]


class GeminiLLM(LLM):
    """A Gemini model. Its default tool format is ``gemini`` JSON; ``native`` uses function
    declarations and function responses."""

    provider = LLMProvider.GEMINI

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
        key = api_key_value("gemini", api_key, api_key_env or "GEMINI_API_KEY")
        genai = import_sdk("google.genai", "google-genai", "gemini", "Gemini")
        types = import_sdk("google.genai.types", "google-genai", "gemini", "Gemini")
        self.model = model
        self._types = types
        options = types.HttpOptions(
            base_url=base_url, timeout=int(timeout_s * 1000),
            retry_options=types.HttpRetryOptions(
                attempts=max_retries + 1, initial_delay=retry_initial_delay_s,
                http_status_codes=_RETRIED,
            ),
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
        stream = self._client.models.generate_content_stream(
            model=self.model, contents=encode_contents(request, names),
            config=self._types.GenerateContentConfig(**config),
        )
        try:
            for chunk in stream:
                if cancel.is_set():
                    return
                for candidate in chunk.candidates or ():
                    parts = candidate.content.parts if candidate.content else None
                    for part in parts or ():
                        if part.text and not part.thought:
                            yield LLMChunk(text=part.text)
                        if part.function_call is not None:
                            call = part.function_call
                            yield LLMChunk(tool_calls=(NativeToolCall(
                                call.id, names.name(call.name or ""), arguments_text(call.args)
                            ),))
                usage = chunk.usage_metadata
                if usage is not None and usage.candidates_token_count is not None:
                    yield LLMChunk(usage=TokenUsage(usage.prompt_token_count or 0,
                                                    usage.candidates_token_count or 0))
        finally:
            close = getattr(stream, "close", None)
            if close is not None:
                close()

"""AnthropicLLM: Claude models on the official SDK's streaming Messages API.

The SDK is an optional extra, imported only when such an LLM is made. Retries with backoff on
429/5xx and the request timeout are the SDK's (``max_retries``, ``timeout_s``); cancelling
closes the stream.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

from autobyteus_like.llm.anthropic_wire import (
    AnthropicToolCallDecoder,
    encode_messages,
    encode_tools,
)
from autobyteus_like.llm.base import LLM
from autobyteus_like.llm.cancellation import cut_connection, on_cancel
from autobyteus_like.llm.messages import LLMChunk, LLMRequest, TokenUsage
from autobyteus_like.llm.provider_setup import api_key as api_key_value
from autobyteus_like.llm.provider_setup import import_sdk
from autobyteus_like.llm.wire_names import WireNames
from autobyteus_like.providers import LLMProvider

__all__ = ["AnthropicLLM"]


class AnthropicLLM(LLM):
    """A Claude model. Its default tool format is XML (seed 003); ``native`` uses tool_use."""

    provider = LLMProvider.ANTHROPIC

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
    ) -> None:
        key = api_key_value("anthropic", api_key, api_key_env or "ANTHROPIC_API_KEY")
        anthropic = import_sdk("anthropic", "anthropic", "anthropic", "Anthropic")
        self.model = model
        self._client = anthropic.Anthropic(api_key=key, base_url=base_url, timeout=timeout_s,
                                           max_retries=max_retries)
        self._options: dict[str, Any] = {"max_tokens": max_tokens or 4096}
        if temperature is not None:
            self._options["temperature"] = temperature

    def request_body(self, request: LLMRequest) -> dict[str, Any]:
        """The Messages API body for ``request`` (what goes on the wire)."""
        names = WireNames(tool.name for tool in request.tools)
        body: dict[str, Any] = {"model": self.model,
                                "messages": encode_messages(request, names),
                                "stream": True, **self._options}
        if request.system_prompt:
            body["system"] = request.system_prompt
        if request.tools:
            body["tools"] = encode_tools(request, names)
        return body

    def stream(self, request: LLMRequest, cancel: threading.Event) -> Iterator[LLMChunk]:
        decoder = AnthropicToolCallDecoder(WireNames(tool.name for tool in request.tools))
        stream = self._client.messages.create(**self.request_body(request))
        input_tokens = 0
        forget = on_cancel(cancel, cut_connection(stream.response))
        try:
            for event in stream:
                if cancel.is_set():
                    return
                kind = event.type
                if kind == "message_start":
                    input_tokens = event.message.usage.input_tokens or 0
                elif kind == "content_block_start":
                    decoder.start(event.index, event.content_block)
                elif kind == "content_block_delta":
                    if event.delta.type == "text_delta":
                        yield LLMChunk(text=event.delta.text)
                    elif event.delta.type == "input_json_delta":
                        decoder.delta(event.index, event.delta.partial_json)
                elif kind == "content_block_stop":
                    call = decoder.stop(event.index)
                    if call is not None:
                        yield LLMChunk(tool_calls=(call,))
                elif kind == "message_delta" and event.usage is not None:
                    yield LLMChunk(usage=TokenUsage(input_tokens, event.usage.output_tokens or 0))
        finally:
            forget()
            stream.close()

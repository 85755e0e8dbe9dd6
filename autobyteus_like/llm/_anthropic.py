"""AnthropicLLM: Claude models on the official SDK's streaming Messages API.

The SDK is an optional extra, imported only when such an LLM is made. A ``ProviderCall``
retries 408/409/429/5xx (529 overloaded included) and connection errors with backoff
(``max_retries``), cuts the connection when cancelled (even before the response headers), and
turns failures into ``LLMError``; requests time out after ``timeout_s``.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

from autobyteus_like.llm import _finish_reasons as finish_reasons
from autobyteus_like.llm._anthropic_wire import (
    AnthropicToolCallDecoder,
    AnthropicUsage,
    encode_messages,
    encode_rules,
    encode_tools,
)
from autobyteus_like.llm._base import LLM
from autobyteus_like.llm._messages import LLMChunk, LLMRequest
from autobyteus_like.llm._prompt_cache import mark_anthropic_breakpoints
from autobyteus_like.llm._provider_call import ProviderCall
from autobyteus_like.llm._provider_setup import prepare, stainless_client
from autobyteus_like.llm._providers import LLMProvider
from autobyteus_like.llm._retry_policy import RetryPolicy
from autobyteus_like.llm._sdk_failures import read_stainless
from autobyteus_like.llm._wire_names import WireNames

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
        prompt_cache: bool = True,
    ) -> None:
        key, anthropic = prepare("anthropic", key=api_key,
                                 key_variable=api_key_env or "ANTHROPIC_API_KEY",
                                 key_required=True, sdk="anthropic", package="anthropic",
                                 extra="anthropic")
        self.model = model
        self.prompt_cache = prompt_cache
        """Mark cache breakpoints (``prompt_cache.py``); off: every request reads afresh."""
        self._sdk = anthropic
        self._retry = RetryPolicy(max_retries)
        self._client = stainless_client(anthropic, "Anthropic", api_key=key, base_url=base_url,
                                        timeout_s=timeout_s)
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
            body["tool_choice"] = encode_rules(request.rules, names)
        return mark_anthropic_breakpoints(body) if self.prompt_cache else body

    def stream(self, request: LLMRequest, cancel: threading.Event) -> Iterator[LLMChunk]:
        decoder = AnthropicToolCallDecoder(WireNames(tool.name for tool in request.tools))
        body = self.request_body(request)
        usage = AnthropicUsage()
        stop_reason = None
        with ProviderCall(self.provider.value, self.model, cancel, self._retry,
                          lambda exc: read_stainless(self._sdk, exc)) as call:
            stream = call.open(lambda: self._client.messages.create(**body))
            if stream is None:
                return
            for event in call.iterate(stream):
                kind = event.type
                if kind == "message_start":
                    usage.add(event.message.usage)
                elif kind == "content_block_start":
                    decoder.start(event.index, event.content_block)
                elif kind == "content_block_delta":
                    if event.delta.type == "text_delta":
                        yield LLMChunk(text=event.delta.text)
                    elif event.delta.type == "input_json_delta":
                        decoder.delta(event.index, event.delta.partial_json)
                elif kind == "content_block_stop":
                    tool_call = decoder.stop(event.index)
                    if tool_call is not None:
                        yield LLMChunk(tool_calls=(tool_call,))
                elif kind == "message_delta":
                    usage.add(event.usage)
                    stop_reason = event.delta.stop_reason or stop_reason
            if cancel.is_set():
                return
            if stop_reason is None:  # the connection ended cleanly, but the message did not
                raise call.failure("the stream ended before the message did (no stop_reason; "
                                   "cut off on the way?)")
            yield LLMChunk(usage=usage.total(), finish_reason=finish_reasons.anthropic(stop_reason),
                           provider_finish_reason=stop_reason)

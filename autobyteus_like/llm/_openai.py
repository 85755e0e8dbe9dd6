"""OpenAILLM: OpenAI and every OpenAI-compatible server, on the official SDK's Chat Completions.

The SDK is an optional extra and is imported only when such an LLM is made. A ``ProviderCall``
retries 408/409/429/5xx and connection errors with backoff (``max_retries``), cuts the
connection when cancelled (even before the response headers), and turns failures into
``LLMError``; requests time out after ``timeout_s``.
"""

from __future__ import annotations

import dataclasses
import json
import threading
from collections.abc import Generator, Iterable, Iterator
from typing import TYPE_CHECKING, Any

from autobyteus_like.errors import LLMError
from autobyteus_like.llm import _finish_reasons as finish_reasons
from autobyteus_like.llm._messages import (
    Adaptation,
    LLMChunk,
    LLMRequest,
    NativeToolCall,
    TokenUsage,
)
from autobyteus_like.llm._openai_client import OpenAIClientLLM
from autobyteus_like.llm._openai_completion import completion_chunks
from autobyteus_like.llm._openai_wire import (
    OpenAIToolCallDecoder,
    encode_messages,
    encode_rules,
    encode_tools,
)
from autobyteus_like.llm._prompt_cache import cache_key_option
from autobyteus_like.llm._provider_call import ProviderCall
from autobyteus_like.llm._providers import LLMProvider
from autobyteus_like.llm._sdk_failures import read_stainless
from autobyteus_like.llm._wire_images import check_vision
from autobyteus_like.llm._wire_names import WireNames

if TYPE_CHECKING:
    from autobyteus_like.tools._definition import ToolDefinition

__all__ = ["OpenAILLM"]


class OpenAILLM(OpenAIClientLLM):
    """A Chat Completions model. ``base_url`` points at any compatible server; the
    self-hosted providers (``ollama``, ``vllm``, ``llamacpp``) need no key, local or remote."""

    follows_response_schema = True

    def __init__(
        self,
        model: str,
        *,
        provider: LLMProvider | str = LLMProvider.OPENAI,
        base_url: str | None = None,
        api_key: str | None = None,
        api_key_env: str | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
        timeout_s: float = 60.0,
        max_retries: int = 3,
        strict: bool = False,
        prompt_cache: bool = True,
        prompt_cache_key: str | None = None,
        vision: bool | None = None,
    ) -> None:
        super().__init__(model, provider=provider, base_url=base_url, api_key=api_key,
                         api_key_env=api_key_env, timeout_s=timeout_s, max_retries=max_retries,
                         vision=vision)
        self.strict = strict
        """OpenAI's strict mode: every tool's schema in its strict subset (``strict_schema``)."""
        self._unstreamed_with_tools = False
        """Set once the server failed a streamed request with tools: such requests then go
        unstreamed for the rest of this LLM's life."""
        self._options: dict[str, Any] = {}
        if temperature is not None:
            self._options["temperature"] = temperature
        if max_tokens is not None:
            self._options["max_tokens"] = max_tokens
        self._options.update(cache_key_option(self.provider, self.base_url, prompt_cache,
                                               prompt_cache_key))

    def check_tools(self, tools: Iterable[ToolDefinition]) -> None:
        if self.strict:
            from autobyteus_like.llm._strict_schema import strict_schema

            for tool in tools:
                strict_schema(tool.name, tool.shared_inline_schema)

    def request_body(self, request: LLMRequest, *, stream: bool = True) -> dict[str, Any]:
        """The Chat Completions body for ``request`` (what goes on the wire)."""
        names = WireNames(tool.name for tool in request.tools)
        body: dict[str, Any] = {
            "model": self.model,
            "messages": encode_messages(request, names),
            **self._options,
        }
        if stream:
            body["stream"] = True
            body["stream_options"] = {"include_usage": True}
        if request.tools:
            body["tools"] = encode_tools(request, names, strict=self.strict)
            body.update(encode_rules(request.rules, names,
                                     tuple(tool.name for tool in request.tools)))
        if request.response_schema is not None:
            body["response_format"] = {"type": "json_schema", "json_schema": {
                "name": "final_result", "schema": request.response_schema}}
        return body

    def stream(self, request: LLMRequest, cancel: threading.Event) -> Iterator[LLMChunk]:
        if request.tools and self._unstreamed_with_tools:
            yield from self._whole(request, cancel)
            return
        refused = yield from self._streamed(request, cancel)
        if refused is None or cancel.is_set():
            return
        # Some compatible servers (llama.cpp's, for one) cannot stream a request with tools:
        # an empty 200, an error event, or a 4xx naming streaming. The same request
        # unstreamed works there, so it is sent so from now on.
        self._unstreamed_with_tools = True
        yield LLMChunk(adapted=Adaptation(
            "wire", "unstreamed", f"the server failed the streamed request with tools "
            f"({refused.message})"))
        yield from self._whole(request, cancel)

    def _streamed(self, request: LLMRequest, cancel: threading.Event
                  ) -> Generator[LLMChunk, None, LLMError | None]:
        """The streamed response; returns the failure instead of raising it when the server
        refused to stream a request with tools before sending anything."""
        names = WireNames(tool.name for tool in request.tools)
        decoder, legacy = OpenAIToolCallDecoder(names), OpenAIToolCallDecoder(names)
        check_vision(request, self.vision, self.provider.value, self.model)
        body = self.request_body(request)
        usage, finish = None, None
        with ProviderCall(self.provider.value, self.model, cancel, self._retry,
                          lambda exc: read_stainless(self._sdk, exc)) as call:
            try:
                stream = call.open(lambda: self._client.chat.completions.create(**body))
                if stream is None:
                    return None
                for chunk in call.iterate(stream):
                    if chunk.usage is not None:
                        usage = _usage(chunk.usage)
                    for choice in chunk.choices:
                        delta = choice.delta
                        if delta.content:
                            yield LLMChunk(text=delta.content)
                        if delta.tool_calls:
                            decoder.add(delta.tool_calls)
                        elif getattr(delta, "function_call", None) is not None:
                            legacy.add([{"index": 0, "function": delta.function_call}])
                        finish = choice.finish_reason or finish
            except LLMError as error:
                if request.tools and _refused_streaming(error, call):
                    return error
                raise
            if cancel.is_set():
                return None
            calls = decoder.finish() or legacy.finish()  # the legacy field only on its own
            yield LLMChunk(tool_calls=self._delivered(calls, request), usage=usage,
                           finish_reason=finish_reasons.openai(finish),
                           provider_finish_reason=finish)
        return None

    def _whole(self, request: LLMRequest, cancel: threading.Event) -> Iterator[LLMChunk]:
        """The request unstreamed, its completion handed over as the chunks a stream gives."""
        names = WireNames(tool.name for tool in request.tools)
        body = self.request_body(request, stream=False)
        with ProviderCall(self.provider.value, self.model, cancel, self._retry,
                          lambda exc: read_stainless(self._sdk, exc)) as call:
            completion = call.open(lambda: self._client.chat.completions.create(**body))
        if completion is None or cancel.is_set():
            return
        for chunk in completion_chunks(completion, names, _usage):
            yield (dataclasses.replace(chunk, tool_calls=self._delivered(chunk.tool_calls,
                                                                         request))
                   if chunk.tool_calls else chunk)

    def _delivered(self, calls: tuple[NativeToolCall, ...],
                   request: LLMRequest) -> tuple[NativeToolCall, ...]:
        """The calls as the tools take them: in strict mode an optional argument comes back
        as null (strict schemas require every property), which means it was left out."""
        if not self.strict or not calls:
            return calls
        from autobyteus_like.llm._strict_schema import optional_properties

        optional = {tool.name: optional_properties(tool.shared_inline_schema)
                    for tool in request.tools}
        return tuple(_without_nulls(call, optional.get(call.name, frozenset()))
                     for call in calls)


def _refused_streaming(error: LLMError, call: ProviderCall) -> bool:
    """Whether a failure says the server cannot stream this request: it failed before its
    first event (an empty 200, an error event), or a 4xx answer names streaming."""
    if call.failed_before_events:
        return True
    said = f"{error.server_message or ''} {error.message}".lower()
    return error.status is not None and 400 <= error.status < 500 and "stream" in said


def _without_nulls(call: NativeToolCall, optional: frozenset[str]) -> NativeToolCall:
    try:
        arguments = json.loads(call.arguments)
    except ValueError:
        return call  # broken arguments are reported as they came
    if not isinstance(arguments, dict) or not any(
            arguments.get(name, 0) is None for name in optional):
        return call
    kept = {key: value for key, value in arguments.items()
            if not (value is None and key in optional)}
    return dataclasses.replace(call, arguments=json.dumps(kept, ensure_ascii=False))


def _usage(usage: Any) -> TokenUsage:
    """Chat Completions usage: ``completion_tokens`` already include reasoning, and
    ``prompt_tokens`` cached ones."""
    completion = getattr(usage, "completion_tokens_details", None)
    prompt = getattr(usage, "prompt_tokens_details", None)
    return TokenUsage(usage.prompt_tokens or 0, usage.completion_tokens or 0,
                      reasoning_tokens=getattr(completion, "reasoning_tokens", None),
                      cached_input_tokens=getattr(prompt, "cached_tokens", None))

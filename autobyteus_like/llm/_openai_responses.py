"""OpenAIResponsesLLM: OpenAI models (and compatible servers) on the official SDK's Responses API.

OpenAI's recommended API, and the only one that keeps a reasoning model's reasoning across
tool calls. Stateless by default (``store: false``): each request carries the whole
conversation, reasoning items with their ``encrypted_content`` included, so a session
resumed elsewhere, or a fallback to this model mid-conversation, works as any other request.
``previous_response=True`` sends only what is new since the last response of this object
(``previous_response_id``, with ``store: true``) when the history still begins with what that
response saw. A ``ProviderCall`` retries, cancels and turns failures into ``LLMError``.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Iterator
from typing import Any

from autobyteus_like.errors import LLMError
from autobyteus_like.llm._messages import LLMChunk, LLMRequest
from autobyteus_like.llm._openai_client import OpenAIClientLLM
from autobyteus_like.llm._openai_responses_wire import (
    ResponsesStreamReader,
    encode_input,
    encode_tools,
)
from autobyteus_like.llm._openai_wire import encode_rules
from autobyteus_like.llm._prompt_cache import cache_key_option
from autobyteus_like.llm._provider_call import ProviderCall
from autobyteus_like.llm._providers import LLMProvider
from autobyteus_like.llm._sdk_failures import Failure, read_stainless, to_llm_error
from autobyteus_like.llm._wire_images import check_vision
from autobyteus_like.llm._wire_names import WireNames

__all__ = ["OpenAIResponsesLLM"]

_REASONING_PREFIXES = ("o1", "o3", "o4", "gpt-5", "codex")
_STATUS_OF_CODE = {"rate_limit_exceeded": 429, "server_error": 500, "server_is_overloaded": 503,
                   "context_length_exceeded": 400}
"""The HTTP status a failed response's error code stands for (so that retries, fallback and
messages treat it as that status)."""


class OpenAIResponsesLLM(OpenAIClientLLM):
    """A model on ``POST /responses``. ``encrypted_reasoning`` (default: for reasoning models,
    ``o*`` and ``gpt-5*``) asks for reasoning items back to carry them along; turn it on for
    a compatible server's reasoning model of another name."""

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
        reasoning_effort: str | None = None,
        encrypted_reasoning: bool | None = None,
        previous_response: bool = False,
        prompt_cache: bool = True,
        prompt_cache_key: str | None = None,
        vision: bool | None = None,
    ) -> None:
        super().__init__(model, provider=provider, base_url=base_url, api_key=api_key,
                         api_key_env=api_key_env, timeout_s=timeout_s, max_retries=max_retries,
                         vision=vision)
        self.previous_response = previous_response
        self._options: dict[str, Any] = {}
        if temperature is not None:
            self._options["temperature"] = temperature
        if max_tokens is not None:
            self._options["max_output_tokens"] = max_tokens
        if reasoning_effort is not None:
            self._options["reasoning"] = {"effort": reasoning_effort}
        if encrypted_reasoning is None:
            encrypted_reasoning = model.startswith(_REASONING_PREFIXES)
        if encrypted_reasoning and not previous_response:
            self._options["include"] = ["reasoning.encrypted_content"]
        self._options.update(cache_key_option(self.provider, self.base_url, prompt_cache,
                                               prompt_cache_key))
        self._last: tuple[str, int, str] | None = None
        """With ``previous_response``: the last response's id, how many messages it was sent
        and their fingerprint."""
        self._lock = threading.Lock()

    def request_body(self, request: LLMRequest) -> dict[str, Any]:
        """The Responses body for ``request`` (what goes on the wire)."""
        names = WireNames(tool.name for tool in request.tools)
        messages = request.messages
        body: dict[str, Any] = {"model": self.model, "stream": True,
                                "store": self.previous_response, **self._options}
        if self.previous_response:
            with self._lock:
                last = self._last
            # the server holds what it was sent and its answer (the next message here)
            if last is not None and len(messages) > last[1] + 1 \
                    and messages[last[1]].role == "assistant" \
                    and _fingerprint(messages[:last[1]], names) == last[2]:
                body["previous_response_id"] = last[0]
                messages = messages[last[1] + 1:]
        if request.system_prompt:
            body["instructions"] = request.system_prompt
        body["input"] = encode_input(messages, names)
        if request.tools:
            body["tools"] = encode_tools(request, names)
            rules = encode_rules(request.rules, names)  # Chat's shape, but for a named tool
            choice = rules["tool_choice"]
            if isinstance(choice, dict):
                rules["tool_choice"] = {"type": "function", "name": choice["function"]["name"]}
            body.update(rules)
        return body

    def stream(self, request: LLMRequest, cancel: threading.Event) -> Iterator[LLMChunk]:
        names = WireNames(tool.name for tool in request.tools)
        reader = ResponsesStreamReader(names)
        check_vision(request, self.vision, self.provider.value, self.model)
        body = self.request_body(request)
        with ProviderCall(self.provider.value, self.model, cancel, self._retry,
                          lambda exc: read_stainless(self._sdk, exc)) as call:
            stream = call.open(lambda: self._client.responses.create(**body))
            if stream is None:
                return
            for event in call.iterate(stream):
                text, calls = reader.feed(event)
                if reader.failure is not None:
                    raise self._failed(*reader.failure, call.attempts)
                if text or calls:
                    yield LLMChunk(text=text, tool_calls=tuple(calls))
            if cancel.is_set():
                return
            if reader.status is None:
                raise call.failure("the stream ended before the response did (no "
                                   "response.completed; cut off on the way?)")
            if self.previous_response and reader.response_id:
                self._remember(request, names, reader.response_id)
            yield LLMChunk(usage=reader.usage, finish_reason=reader.finish,
                           provider_finish_reason=reader.provider_finish,
                           carried=tuple(reader.carried))

    def _failed(self, code: str | None, message: str, attempts: int) -> LLMError:
        """The error for a ``response.failed`` or ``error`` event."""
        status = _STATUS_OF_CODE.get(code or "")
        reason = "the response failed" + (f" ({code})" if code else "")
        return to_llm_error(Failure(reason, status=status, server_message=message),
                            self.provider.value, self.model, attempts)

    def _remember(self, request: LLMRequest, names: WireNames, response_id: str) -> None:
        """What the next request may leave out: what this one was sent, and the answer."""
        fingerprint = _fingerprint(request.messages, names)
        with self._lock:
            self._last = (response_id, len(request.messages), fingerprint)


def _fingerprint(messages: Any, names: WireNames) -> str:
    """A digest of messages as this wire sends them (reasoning items included)."""
    text = json.dumps(encode_input(tuple(messages), names), sort_keys=True,
                      ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()

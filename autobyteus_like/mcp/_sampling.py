"""Sampling: a server asks for an LLM completion (``sampling/createMessage``).

Off unless the server's config says ``sampling: true``: until then the client does not even
announce the capability (the SDK refuses any request); with it but no ``sampler`` on the
toolset, a request is refused with an error saying so. When on, the request
(its text messages, system prompt and token cap) goes to the sampler on a worker thread, after
``approve_sampling`` (if given) said yes; the answer is the sampler's text. ``LLMSampler``
makes a sampler of an ``LLM`` (a member's own, or another one), counting the tokens it used.
A request nobody answers within ``sampling_timeout_s`` is refused, never a hang.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import anyio
from loguru import logger

from autobyteus_like.llm._base import LLM
from autobyteus_like.llm._messages import LLMRequest, Message, TokenUsage

__all__ = ["LLMSampler", "Sampler", "SamplingRequest", "sampling_callback"]

_MAX_MESSAGES = 200


@dataclass(frozen=True)
class SamplingRequest:
    """A server's completion request, as text."""

    server: str
    system_prompt: str
    messages: tuple[tuple[Literal["user", "assistant"], str], ...]
    max_tokens: int


Sampler = Callable[[SamplingRequest], str]
"""Called on a worker thread; returns the completion's text."""


class LLMSampler:
    """A ``Sampler`` answering with ``llm``; ``usage`` adds up the tokens it used."""

    def __init__(self, llm: LLM) -> None:
        self.llm = llm
        self.usage = TokenUsage()
        self._lock = threading.Lock()

    def __call__(self, request: SamplingRequest) -> str:
        messages = tuple(Message(role=role, content=text) for role, text in request.messages)
        parts: list[str] = []
        for chunk in self.llm.stream(LLMRequest(request.system_prompt, messages),
                                     threading.Event()):
            parts.append(chunk.text)
            if chunk.usage is not None:
                with self._lock:
                    self.usage = TokenUsage(self.usage.input_tokens + chunk.usage.input_tokens,
                                            self.usage.output_tokens + chunk.usage.output_tokens)
        return "".join(parts)


def _text(content: Any) -> str:
    blocks = content if isinstance(content, list) else [content]
    return "\n".join(str(b.text) if getattr(b, "type", "") == "text"
                     else f"[{getattr(b, 'type', 'content')}: not shown]" for b in blocks)


def sampling_callback(server: str, sampler: Sampler | None,
                      approve: Callable[[SamplingRequest], bool] | None,
                      timeout_s: float) -> Any:
    """The SDK ``sampling_callback`` for ``server``."""
    from mcp_types import INVALID_REQUEST, CreateMessageResult, ErrorData, TextContent

    def decline(why: str) -> Any:
        logger.info("mcp server {}: a sampling request was refused: {}", server, why)
        return ErrorData(code=INVALID_REQUEST, message=why)

    model = type(sampler.llm).__name__ if isinstance(sampler, LLMSampler) else "autobyteus-like"

    async def sample(context: Any, params: Any) -> Any:
        if sampler is None:
            return decline(f"the MCP server {server!r} has 'sampling: true' but its toolset has "
                          "no sampler to answer with")
        if len(params.messages) > _MAX_MESSAGES:
            return decline(f"more than {_MAX_MESSAGES} messages")
        request = SamplingRequest(
            server, str(params.system_prompt or ""),
            tuple(("assistant" if m.role == "assistant" else "user", _text(m.content))
                  for m in params.messages), int(params.max_tokens))

        def answer() -> str | None:
            if approve is not None and not approve(request):
                return None
            return sampler(request)

        text: str | None = None
        with anyio.move_on_after(timeout_s) as scope:
            try:
                text = await anyio.to_thread.run_sync(answer, abandon_on_cancel=True)
            except Exception as exc:  # the LLM failed: the server is told, nothing is raised
                return decline(f"the LLM failed: {type(exc).__name__}: {exc}"[:500])
        if scope.cancelled_caught:
            return decline(f"no answer within {timeout_s:g} s")
        if text is None:
            return decline("the request was not approved")
        return CreateMessageResult(role="assistant", content=TextContent(type="text", text=text),
                                   model=model)

    return sample

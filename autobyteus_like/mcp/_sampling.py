"""Sampling: a server asks for an LLM completion (``sampling/createMessage``).

Off unless the server's config says ``sampling: true``: until then the client does not even
announce the capability (the SDK refuses any request). When on, a request that comes while one
of our agents' calls to that server runs is answered through that agent's side requests
(``agent/_side_requests.py``, the path ``memory.summarize`` takes): claimed under the run's
admission and usage limits (a limit refuses it, never sent), counted in the run's usage, cut
when the agent stops; by the member's own model, or by the toolset's ``LLMSampler``'s model
when one is given. A request with no agent's call running (a toolset used on its own) goes to
the toolset's ``sampler`` (uncounted), and is refused without one. ``approve_sampling`` (if
given) is asked first; a request nobody answers within ``sampling_timeout_s`` is refused,
never a hang.
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
                      timeout_s: float, running: Callable[[], Any] | None = None) -> Any:
    """The SDK ``sampling_callback`` for ``server``; ``running()`` is the ``ToolContext`` of an
    agent's call to the server in flight (None: none)."""
    from mcp_types import INVALID_REQUEST, CreateMessageResult, ErrorData, TextContent

    from autobyteus_like.errors import ToolFailure

    def decline(why: str) -> Any:
        logger.info("mcp server {}: a sampling request was refused: {}", server, why)
        return ErrorData(code=INVALID_REQUEST, message=why)

    model = type(sampler.llm).__name__ if isinstance(sampler, LLMSampler) else "autobyteus-like"

    async def sample(context: Any, params: Any) -> Any:
        call = running() if running is not None else None
        side = getattr(call, "side_llm", None)
        if side is None and sampler is None:
            return decline(f"the MCP server {server!r} has 'sampling: true' but no agent's call "
                           "to it is running and its toolset has no sampler to answer with")
        if len(params.messages) > _MAX_MESSAGES:
            return decline(f"more than {_MAX_MESSAGES} messages")
        request = SamplingRequest(
            server, str(params.system_prompt or ""),
            tuple(("assistant" if m.role == "assistant" else "user", _text(m.content))
                  for m in params.messages), int(params.max_tokens))

        def answer() -> str | None:
            if approve is not None and not approve(request):
                return None
            if side is not None and (sampler is None or isinstance(sampler, LLMSampler)):
                return str(side.ask(  # claimed, counted and cut as the agent's own
                    request.system_prompt, "", cancel=getattr(call, "cancelled", None),
                    llm=sampler.llm if isinstance(sampler, LLMSampler) else None,
                    messages=[Message(role=role, content=text)
                              for role, text in request.messages]))
            assert sampler is not None
            return sampler(request)

        text: str | None = None
        with anyio.move_on_after(timeout_s) as scope:
            try:
                text = await anyio.to_thread.run_sync(answer, abandon_on_cancel=True)
            except ToolFailure as exc:  # refused by a limit, the agent stopped, nothing said
                return decline(f"the sampling request was not answered: {exc.message}"[:500])
            except Exception as exc:  # the LLM failed: the server is told, nothing is raised
                return decline(f"the LLM failed: {type(exc).__name__}: {exc}"[:500])
        if scope.cancelled_caught:
            return decline(f"no answer within {timeout_s:g} s")
        if text is None:
            return decline("the request was not approved")
        return CreateMessageResult(role="assistant", content=TextContent(type="text", text=text),
                                   model=model)

    return sample

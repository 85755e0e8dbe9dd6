"""The interface every LLM implements: one blocking, cancellable, streaming call; and the base
of an LLM that wraps another."""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from autobyteus_like.errors import LLMError
from autobyteus_like.llm._messages import LLMChunk, LLMRequest
from autobyteus_like.llm._providers import LLMProvider

if TYPE_CHECKING:
    from autobyteus_like.tools._definition import ToolDefinition

__all__ = ["LLM", "LLMError", "WrappingLLM"]


class LLM(ABC):
    """A model behind a provider. ``stream`` runs on a worker thread, never on an agent's."""

    provider: LLMProvider = LLMProvider.OTHER
    reports_usage: bool = True
    """Whether its responses carry token usage (False: known not to, so a token or cost limit
    cannot be kept and is warned about when the agent starts)."""
    follows_response_schema: bool = False
    """Whether it sends ``LLMRequest.response_schema`` as the provider's structured output."""

    @abstractmethod
    def stream(self, request: LLMRequest, cancel: threading.Event) -> Iterator[LLMChunk]:
        """Yield the response in chunks, the last with its usage and finish reason; stop early
        (quietly) when ``cancel`` is set; fail with ``LLMError``."""

    def check_tools(self, tools: Iterable[ToolDefinition]) -> None:
        """Raise ``ConfigError`` for a tool this LLM cannot declare (checked when the agent
        starts, not at its first request). Most LLMs take every tool."""
        return None


class WrappingLLM(LLM):
    """An LLM that changes what ``inner`` is sent or sends back, and is otherwise ``inner``: its
    provider, its check of the tools and its own attributes (``model``, ``requests``, ...)."""

    def __init__(self, inner: LLM) -> None:
        self.inner = inner
        self.provider = inner.provider

    def check_tools(self, tools: Iterable[ToolDefinition]) -> None:
        self.inner.check_tools(tools)

    def __getattr__(self, name: str) -> Any:
        # "inner" is looked up here only while unpickling, before it is set.
        if name == "inner":
            raise AttributeError(name)
        return getattr(self.inner, name)

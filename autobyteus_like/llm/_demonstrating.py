"""A member's LLM with one demonstration exchange before the conversation: a user's request
and the assistant's reply that calls a tool in the member's text format (``manifest:
compact``). Small models copy a rule's schema or answer in prose; a shown reply they follow.
The exchange is on each request only, never in the history or the session log."""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Iterator

from autobyteus_like.llm._base import LLM, WrappingLLM
from autobyteus_like.llm._messages import LLMChunk, LLMRequest, Message

__all__ = ["DemonstratingLLM"]


class DemonstratingLLM(WrappingLLM):
    """``inner`` with ``exchange()`` (a request and its reply, or None for none) put before
    each request's messages; read per request, so it follows the member's current tools."""

    def __init__(self, inner: LLM, exchange: Callable[[], tuple[str, str] | None]) -> None:
        super().__init__(inner)
        self.exchange = exchange

    def stream(self, request: LLMRequest, cancel: threading.Event) -> Iterator[LLMChunk]:
        shown = self.exchange()
        if shown is not None:
            asked, answered = shown
            request = dataclasses.replace(request, messages=(
                Message("user", asked), Message("assistant", answered), *request.messages))
        return self.inner.stream(request, cancel)

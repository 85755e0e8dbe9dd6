"""A scripted LLM that reports token usage with each response, as a provider does (the
ScriptedLLM reports none); the responses themselves are ScriptedLLM's."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from dataclasses import replace

from autobyteus_like import ScriptedLLM
from autobyteus_like.llm import LLMChunk, LLMRequest, TokenUsage
from autobyteus_like.llm._scripted import ScriptedResponse


class MeteredLLM(ScriptedLLM):
    """Each response ends with ``usage`` (the same for every response), under ``model``."""

    reports_usage = True

    def __init__(self, responses: Sequence[ScriptedResponse], usage: TokenUsage,
                 model: str = "metered-1", provider: str = "openai") -> None:
        super().__init__(responses, provider=provider)
        self.model = model
        self.usage = usage

    def stream(self, request: LLMRequest, cancel: threading.Event) -> Iterator[LLMChunk]:
        chunks = list(super().stream(request, cancel))
        if chunks:
            chunks[-1] = replace(chunks[-1], usage=self.usage, final=True)
        yield from chunks

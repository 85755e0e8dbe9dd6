"""A member's call rules (``tool_choice``, ``parallel_tool_calls``) put on each request it
sends: ``RuledLLM`` for native calling, and ``with_rules``, which ``FormatAdaptingLLM`` uses
too (``format_adapting``), so neither imports the module that picks between them
(``member_llm``)."""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Iterator

from autobyteus_like.llm._base import LLM, WrappingLLM
from autobyteus_like.llm._messages import LLMChunk, LLMRequest
from autobyteus_like.tools._call_rules import CallRules, ToolChoice

__all__ = ["RuledLLM", "with_rules"]


class RuledLLM(WrappingLLM):
    """``inner`` with ``rules`` put on each request (the wires map them to each provider)."""

    def __init__(self, inner: LLM, rules: CallRules) -> None:
        super().__init__(inner)
        self.rules = rules

    def stream(self, request: LLMRequest, cancel: threading.Event) -> Iterator[LLMChunk]:
        return self.inner.stream(with_rules(request, self.rules), cancel)


def with_rules(request: LLMRequest, rules: CallRules) -> LLMRequest:
    """``request`` carrying ``rules``; a rule that forces a call is relaxed to ``auto`` once
    the request brings tool results (the turn made its call: forcing another would loop, so
    openai-agents resets its tool_choice the same way)."""
    choice = rules.choice
    if choice is not None and choice.forces_a_call and request.messages and \
            request.messages[-1].role == "tool":
        rules = CallRules(ToolChoice("auto"), rules.parallel)
    return dataclasses.replace(request, rules=rules)

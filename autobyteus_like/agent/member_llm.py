"""A member's LLM as its agent uses it: the member's call rules on every request, and with
``tool_format: auto`` the format adapting to what the server and model can do.

Both live behind the LLM seam, so the turn machine never branches on them: it speaks native
tool calling, and ``FormatAdaptingLLM`` (``format_adapting``) translates when it has switched to
a text format.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Iterator

from autobyteus_like.llm.base import LLM, WrappingLLM
from autobyteus_like.llm.messages import LLMChunk, LLMRequest
from autobyteus_like.tools.call_rules import CallRules, ToolChoice

__all__ = ["AUTO_FORMAT", "RuledLLM", "member_llm", "with_rules"]

AUTO_FORMAT = "auto"
"""``tool_format: auto``: native where it works, else a text format."""


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


def member_llm(llm: LLM, rules: CallRules, *, adapt: bool) -> LLM:
    """``llm`` as a member with these rules uses it (itself when nothing needs adding)."""
    if adapt:
        from autobyteus_like.agent.format_adapting import FormatAdaptingLLM

        return FormatAdaptingLLM(llm, rules)
    return RuledLLM(llm, rules) if rules.any else llm

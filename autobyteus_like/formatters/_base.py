"""The formatter interface: how one format teaches tools and writes results back."""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any

from autobyteus_like.tools._definition import ToolDefinition
from autobyteus_like.tools._invocation import ToolInvocation, ToolResult

__all__ = ["ToolFormatter", "error_text", "json_text"]


_UNICODE_JSON = json.JSONEncoder(ensure_ascii=False)
"""Made once: ``json.dumps`` with a non-default option builds an encoder on every call."""


def json_text(value: Any, indent: int | None = None) -> str:
    """JSON as an LLM reads it best: real unicode, no ASCII escapes."""
    if indent is None:
        return _UNICODE_JSON.encode(value)
    return json.dumps(value, ensure_ascii=False, indent=indent)


def error_text(result: ToolResult) -> str:
    """A failure as one line the LLM can act on: code, message and suggestion."""
    if result.error is None:
        return ""
    text = f"{result.error.code.value}: {result.error.message}"
    if result.error.suggestion:
        text += f" Suggestion: {result.error.suggestion}"
    return text


class ToolFormatter(ABC):
    """One format's teaching and result rendering. Stateless; one instance serves everyone."""

    format: str
    """The name of the format this formatter teaches."""
    teaches_in_prompt: bool = True
    """False for native tool calling: the provider declares the tools, the prompt does not."""

    @abstractmethod
    def guidelines(self) -> str:
        """General usage rules for the format, printed once above the tools."""

    @abstractmethod
    def describe_tool(self, tool: ToolDefinition) -> str:
        """The tool's schema in the format's idiom."""

    @abstractmethod
    def format_call(
        self, name: str, arguments: dict[str, Any], call_id: str | None = None
    ) -> str:
        """A call written exactly as the model should write it (the format's parser reads it)."""

    @abstractmethod
    def render_results(self, pairs: Sequence[tuple[ToolInvocation, ToolResult]]) -> str:
        """A turn's results for the LLM, in the order given (the invocation order)."""

    def example_fence(self) -> str:
        """The Markdown fence language for examples ('' for none)."""
        return ""

    def teaches(self, tool: ToolDefinition) -> bool:
        """Whether the manifest shows ``tool`` (all of them, unless a member's rules name
        the one tool to call)."""
        return True

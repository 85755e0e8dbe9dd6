"""The one place a response's tool results become the conversation's next message, for a turn
that goes on (``turn_steps``) and for a stored turn that is resumed or abandoned
(``turn_resume``)."""

from __future__ import annotations

from collections.abc import Sequence

from autobyteus_like.formats import NATIVE, ToolFormat
from autobyteus_like.llm._messages import Message
from autobyteus_like.tools._invocation import ToolInvocation, ToolResult

__all__ = ["results_message"]


def results_message(tool_format: ToolFormat, invocations: Sequence[ToolInvocation],
                    results: Sequence[ToolResult]) -> Message:
    """The results of ``invocations`` (in invocation order) as the message the LLM reads next:
    structured tool results for native calling; otherwise the format's rendering as a user
    message, the results kept as data and their images attached (each named in the text)."""
    if tool_format.name == NATIVE:
        return Message("tool", "", tool_results=tuple(results))
    rendered = tool_format.formatter.render_results(list(zip(invocations, results, strict=True)))
    images = tuple(image for result in results for image in result.images)
    return Message("user", rendered, tool_results=tuple(results), images=images)

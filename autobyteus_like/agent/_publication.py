"""What people and disks may see of an agent's events: masked arguments and allowlisted
results (handlers and the LLM keep the originals). Redaction costs nothing unless a tool of the
agent asks for it."""

from __future__ import annotations

import dataclasses

from autobyteus_like.events import AgentEvent, ToolResultReceived
from autobyteus_like.tools._invocation import ToolInvocation
from autobyteus_like.tools._redaction import redact_invocation, redact_result
from autobyteus_like.tools._registry import ToolRegistry

__all__ = ["Publication"]


def _carries_calls(kind: type[AgentEvent]) -> bool:
    """Whether events of this type carry a call's arguments or a result (to be redacted)."""
    names = {field.name for field in dataclasses.fields(kind)}
    return "invocation" in names or "result" in names


class Publication:
    """Makes events public for one agent's tools (``use`` switches to new tools)."""

    def __init__(self, tools: ToolRegistry) -> None:
        self._redactable: dict[type[AgentEvent], bool] = {}
        self.use(tools)

    def use(self, tools: ToolRegistry) -> None:
        """Redact by these tools from now on."""
        self._tools = tools
        self._redacting = any(tool.masked_arguments or tool.result_allowlist is not None
                              for tool in tools)

    def public(self, event: AgentEvent) -> AgentEvent:
        """The event as it may be shown."""
        if not self._redacting:
            return event
        kind = type(event)
        redact = self._redactable.get(kind)
        if redact is None:
            redact = self._redactable[kind] = _carries_calls(kind)
        if not redact:
            return event
        invocation = getattr(event, "invocation", None)
        if isinstance(invocation, ToolInvocation):
            masked = redact_invocation(invocation, self._tools.find(invocation.name))
            return event if masked is invocation else dataclasses.replace(
                event, invocation=masked  # type: ignore[call-arg]
            )
        if isinstance(event, ToolResultReceived):
            shown = redact_result(event.result, self._tools.find(event.result.tool_name))
            return event if shown is event.result else dataclasses.replace(event, result=shown)
        return event

"""ToolContext: what the runtime hands a tool that asks for it (a parameter typed ToolContext).

The parameter is not part of the tool's schema: the LLM never sees or fills it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from autobyteus_like.tools.sandbox import SandboxPolicy

__all__ = ["ToolContext"]


@dataclass(frozen=True)
class ToolContext:
    """The calling agent, the invocation, and the sandbox that applies to this call."""

    agent: str = ""
    invocation_id: str = ""
    sandbox: SandboxPolicy = field(default_factory=SandboxPolicy)

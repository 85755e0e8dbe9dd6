"""ToolContext: what the runtime hands a tool that asks for it (a parameter typed ToolContext).

The parameter is not part of the tool's schema: the LLM never sees or fills it.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from autobyteus_like.tools.sandbox import SandboxPolicy

__all__ = ["ToolContext"]


@dataclass(frozen=True)
class ToolContext:
    """The calling agent, the invocation, the sandbox that applies to this call, and its
    cancellation: set when the call's timeout passes or the agent stops. A tool that works for
    long (a subprocess, a network wait) checks ``cancelled`` and gives up, so nothing it
    started outlives the call."""

    agent: str = ""
    invocation_id: str = ""
    sandbox: SandboxPolicy = field(default_factory=SandboxPolicy)
    cancelled: threading.Event = field(default_factory=threading.Event, compare=False)

"""ToolContext: what the runtime hands a tool that asks for it (a parameter typed ToolContext).

The parameter is not part of the tool's schema: the LLM never sees or fills it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from autobyteus_like._frozen_values import fast_frozen
from autobyteus_like.tools._sandbox import SandboxPolicy

__all__ = ["CancelFlag", "ToolContext"]


class CancelFlag:
    """Set once, read from any thread: whether a call was cancelled. (A ``threading.Event``
    would do, at ~6 us a call to create; tools only ever poll this.)"""

    __slots__ = ("_set",)

    def __init__(self) -> None:
        self._set = False

    def set(self) -> None:
        """Cancel."""
        self._set = True

    def is_set(self) -> bool:
        """Whether it was cancelled."""
        return self._set


@fast_frozen  # one per call: the dataclass's own __init__ cost ~5,000 instructions
@dataclass(frozen=True, slots=True)
class ToolContext:
    """The calling agent, the invocation, the sandbox that applies to this call, and its
    cancellation: set when the call's timeout passes or the agent stops. A tool that works for
    long (a subprocess, a network wait) checks ``cancelled`` and gives up, so nothing it
    started outlives the call."""

    agent: str = ""
    invocation_id: str = ""
    sandbox: SandboxPolicy = field(default_factory=SandboxPolicy)
    cancelled: CancelFlag = field(default_factory=CancelFlag, compare=False)

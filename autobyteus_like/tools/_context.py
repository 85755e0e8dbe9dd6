"""ToolContext: what the runtime hands a tool that asks for it (a parameter typed ToolContext).

The parameter is not part of the tool's schema: the LLM never sees or fills it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from autobyteus_like._frozen_values import fast_frozen
from autobyteus_like.tools._sandbox import SandboxPolicy

__all__ = ["CancelFlag", "SideLLM", "ToolContext", "WorkingSetView"]


class SideLLM(Protocol):
    """The agent's model asked aside from its conversation (``agent/_side_requests.py``):
    each request is claimed and counted like the agent's own (usage and limits)."""

    @property
    def context_tokens(self) -> int:
        """About how many tokens one request may hold (prompt and answer)."""
        ...

    def ask(self, instructions: str, text: str, *, llm: Any = None,
            cancel: CancelFlag | None = None) -> str:
        """The model's answer to ``text`` under ``instructions`` (``llm``: another model to
        ask instead of the agent's own); a ``ToolFailure`` when refused or failed."""
        ...


class WorkingSetView(Protocol):
    """The agent's working set (``memory.advise``): hot and cold paths, each with a why."""

    def advise(self, hot: Mapping[str, str], cold: Mapping[str, str]) -> dict[str, Any]:
        """Make ``hot`` paths hot and ``cold`` ones cold; the working set after it."""
        ...


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
    side_llm: SideLLM | None = field(default=None, compare=False)
    """The agent's model for a tool's own requests (``memory.summarize``); None outside an
    agent."""
    working_set: WorkingSetView | None = field(default=None, compare=False)
    """The agent's working set (``memory.advise``); None outside an agent."""

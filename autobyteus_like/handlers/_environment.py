"""TurnEnvironment: what every step of a turn reads and none changes.

The agent's settings, its tools and their call format, the system prompt, the hooks, the checks
where a turn may end, and what a tool is given (the side LLM, the working set, the session that
names each call's key). Frozen: the actor builds it once; refreshed tools (an MCP server's list
changed) take effect at a turn's start as a new environment (``AgentContext.use``). What
changes as a turn goes is the state, ``AgentContext``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

from autobyteus_like.formats import NATIVE, ToolFormat
from autobyteus_like.hooks._protocol import AgentHooks
from autobyteus_like.tools._context import SideLLM, WorkingSetView
from autobyteus_like.tools._registry import ToolRegistry

if TYPE_CHECKING:
    from autobyteus_like.handlers._turn_verdict import TurnVerdict
    from autobyteus_like.tools._sandbox import SandboxPolicy

__all__ = ["TurnEnvironment", "TurnSettings"]


class TurnSettings(Protocol):
    """What the turn machine reads of an agent's configuration (``AgentConfig`` fits it), so
    it imports nothing of the agent package that drives it."""

    @property
    def name(self) -> str: ...
    @property
    def max_iterations(self) -> int: ...
    @property
    def tool_timeout_s(self) -> float | None: ...
    @property
    def require_why(self) -> bool: ...
    @property
    def auto_execute_tools(self) -> bool: ...
    @property
    def approval_policy(self) -> Literal["all", "marked", "auto_approve_marked"]: ...
    def sandbox_for(self, tool_name: str) -> SandboxPolicy: ...
    def resolved_execution(self) -> Literal["parallel", "sequential"]: ...


@dataclass(frozen=True, slots=True)
class TurnEnvironment:
    """The frozen environment of an agent's turns (``name``, ``native`` and ``sequential``
    are read from the others once)."""

    config: TurnSettings
    tools: ToolRegistry
    format: ToolFormat
    system_prompt: str
    hooks: AgentHooks = field(default_factory=AgentHooks)
    """Everything that watches or persists the turn (called at every step)."""
    turn_checks: tuple[Callable[[Any], TurnVerdict | None], ...] = ()
    """Checks that may end the turn or ask again once a response's calls are all done
    (typed output, retry budgets: ``turn_verdict``); each a ``context.TurnCheck``."""
    side_llm: SideLLM | None = None
    working_set: WorkingSetView | None = None
    """A tool's ways to the agent's model and working set (``ToolContext``)."""
    session: str | None = None
    """The session the conversation is stored in (each call's idempotency key names it)."""
    name: str = field(init=False)
    native: bool = field(init=False)
    """Native tool calling: tools in the request, calls and results as structured data."""
    sequential: bool = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "name", self.config.name)
        object.__setattr__(self, "native", self.format.name == NATIVE)
        object.__setattr__(self, "sequential",
                           self.config.resolved_execution() == "sequential")

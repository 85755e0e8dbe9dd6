"""What a turn step asks the agent's actor to do: the effects a step yields, carried out by
the actor (``agent/_actor.py``, ``AgentActor._carry_out``) in the order they come.

A step is a generator: ``request_llm(ctx)`` yields a ``StreamLLM``, ``start_ready_calls(ctx)``
a ``RunTool`` per call it starts, and an ``AgentEvent`` it yields is emitted (handled and
published after the current one, in order). The actor carries each effect out as it is
yielded, so a step that goes on after one sees its result (after an ``EndRun`` the run is over
and the turn gone); a test iterates a step with ``list(step(ctx, ...))`` and reads what it asks
for, no actor needed.

- an ``AgentEvent``: emit it;
- ``StreamLLM``: hand the request to the LLM worker (``agent/_llm_worker.py``);
- ``RunTool``: hand the call to the tool runner (``agent/_tool_runner.py``), which runs the
  tool's body and posts its ``ToolResultReceived``;
- ``Reply``: resolve (or fail) a caller's future, once the events of the current mailbox
  message are published;
- ``EndRun``: a verdict ended the run: stop its work, then end it (``handlers/_run_end.py``).
"""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import Future
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeAlias

from autobyteus_like.events import AgentEvent

if TYPE_CHECKING:
    from autobyteus_like.errors import UsageLimitExceededError
    from autobyteus_like.llm._messages import LLMRequest
    from autobyteus_like.tools._context import ToolContext
    from autobyteus_like.tools._definition import ToolDefinition
    from autobyteus_like.tools._invocation import ToolInvocation

__all__ = ["Effect", "Effects", "EndRun", "Reply", "RunTool", "StreamLLM"]


@dataclass(frozen=True, slots=True)
class StreamLLM:
    """Send ``request`` (the turn's ``request_no``-th) and stream its response back as
    events."""

    request_no: int
    request: LLMRequest
    turn_id: int


@dataclass(frozen=True, slots=True)
class RunTool:
    """Run ``tool``'s body for ``invocation`` with its validated arguments (``bound``), at most
    ``timeout`` seconds; its result comes back as a ``ToolResultReceived``."""

    invocation: ToolInvocation
    tool: ToolDefinition
    timeout: float | None
    context: ToolContext
    bound: Any


@dataclass(frozen=True, slots=True)
class Reply:
    """Answer a caller: ``reply`` gets ``answer``, or ``error`` when there is one; done after
    the current message's events are published, so the caller never overtakes them."""

    reply: Future[str]
    answer: str = ""
    error: BaseException | None = None

    def give(self) -> None:
        """Resolve or fail the future (the first answer given wins)."""
        if not self.reply.done():
            if self.error is None:
                self.reply.set_result(self.answer)
            else:
                self.reply.set_exception(self.error)


@dataclass(frozen=True, slots=True)
class EndRun:
    """A verdict ended the run: its LLM request and tools stop, the turn and every message
    fail with ``error``."""

    error: UsageLimitExceededError


Effect: TypeAlias = "AgentEvent | StreamLLM | RunTool | Reply | EndRun"
Effects: TypeAlias = Iterator["AgentEvent | StreamLLM | RunTool | Reply | EndRun"]
"""What a step returns: the effects it asks for, in order."""

"""ToolInvocationHandler: validates a pending call, asks for approval when policy says so, and
queues it to run (``turn_steps.start_ready_calls`` yields its ``RunTool``). Every rejection is
a result in the call's slot, never a stop."""

from __future__ import annotations

from autobyteus_like.errors import ToolArgumentError
from autobyteus_like.events import (
    AgentEvent,
    ApprovalDenied,
    ApprovalGranted,
    ApprovalRequested,
    PendingToolInvocation,
    ToolResultReceived,
)
from autobyteus_like.handlers._context import AgentContext
from autobyteus_like.handlers._effects import Effects
from autobyteus_like.handlers._scheduling import Slot, SlotState
from autobyteus_like.handlers._turn_steps import run_over, start_ready_calls
from autobyteus_like.tools._approval import waits_for_approval
from autobyteus_like.tools._handoff import handoff_receiver
from autobyteus_like.tools._invocation import ErrorCode, ToolResult

__all__ = ["ToolInvocationHandler"]


class ToolInvocationHandler:
    """Handles ``PendingToolInvocation``, ``ApprovalGranted`` and ``ApprovalDenied``."""

    def handle(self, event: AgentEvent, ctx: AgentContext) -> Effects:
        if isinstance(event, PendingToolInvocation):
            return self._pending(event, ctx)
        assert isinstance(event, ApprovalGranted | ApprovalDenied)
        return self._decided(event, ctx)

    def _pending(self, event: PendingToolInvocation, ctx: AgentContext) -> Effects:
        turn = ctx.turn
        slot = turn.schedule.find(event.invocation.id) if turn else None
        if turn is None or slot is None or slot.state is not SlotState.PENDING:
            return
        ctx.env.hooks.call_pending(turn, slot)
        if (over := run_over(ctx)) is not None:
            yield over  # a limit (this agent's or a teammate's) ends the run
            return
        call = slot.invocation
        if slot.tool is None:
            available = ", ".join(ctx.env.tools.names()) or "none"
            yield self._fail(ctx, slot, ErrorCode.UNKNOWN_TOOL,
                             f"there is no tool named {call.name!r}",
                             f"use one of the available tools: {available}")
            return
        try:
            slot.bound = slot.tool.bind(call.arguments)
        except ToolArgumentError as exc:
            yield self._fail(ctx, slot, ErrorCode.INVALID_ARGS, str(exc),
                             "fix the arguments to match the tool's schema and call it again")
            return
        first = turn.schedule.first_handoff
        if first is not None and first is not slot and handoff_receiver(slot.tool) is not None:
            yield self._fail(ctx, slot, ErrorCode.PERMISSION_DENIED,
                             f"only one handoff per response: this response hands the "
                             f"conversation over with its first one, {first.invocation.name} "
                             f"({first.invocation.id}); this one was not made",
                             "hand over once; the member it goes to can hand it on",
                             recoverable=False)
            return
        config = ctx.env.config
        if config.require_why and not (call.why and call.why.strip()):
            yield self._fail(ctx, slot, ErrorCode.MISSING_WHY,
                             f"the call to {call.name!r} has no why",
                             "add a one-sentence 'why' argument stating what the call is for")
            return
        if slot.tool.needs_network and not config.sandbox_for(call.name).allow_network:
            yield self._fail(ctx, slot, ErrorCode.PERMISSION_DENIED,
                             f"{call.name} needs the network, which this agent's sandbox forbids",
                             "do without this tool", recoverable=False)
            return
        needs_approval = not slot.approved and waits_for_approval(
            slot.tool, auto_execute_tools=config.auto_execute_tools,
            approval_policy=config.approval_policy)
        if needs_approval:
            turn.schedule.await_approval(slot)
            ctx.env.hooks.call_waiting(turn, slot)
            yield ApprovalRequested(agent=ctx.name, invocation=call)
        else:
            turn.schedule.make_ready(slot)
        yield from start_ready_calls(ctx)

    def _decided(self, event: ApprovalGranted | ApprovalDenied, ctx: AgentContext) -> Effects:
        turn = ctx.turn
        slot = turn.schedule.find(event.invocation_id) if turn else None
        if slot is None or slot.state is not SlotState.AWAITING_APPROVAL:
            yield ctx.problem(f"no call {event.invocation_id!r} is waiting for approval",
                              "UnknownApproval")
            return
        if isinstance(event, ApprovalDenied):
            yield ToolResultReceived(agent=ctx.name,
                                     result=ToolResult.denied(slot.invocation, event.reason))
            return
        assert turn is not None
        slot.approved = True
        ctx.env.hooks.call_approved(turn, slot)
        turn.schedule.make_ready(slot)
        yield from start_ready_calls(ctx)

    @staticmethod
    def _fail(ctx: AgentContext, slot: Slot, code: ErrorCode, message: str, suggestion: str,
              recoverable: bool = True) -> ToolResultReceived:
        """The call's rejection: a result that never started, emitted like any other."""
        result = ToolResult.failure(slot.invocation, code, message, suggestion=suggestion,
                                    recoverable=recoverable, started=False)
        return ToolResultReceived(agent=ctx.name, result=result)

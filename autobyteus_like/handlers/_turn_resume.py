"""Resuming a stored turn: the agent picks up where its process stopped, from one value.

The session gives a ``TurnSnapshot`` (``store/_restore.py``). ``restore_context`` gives the
context its history, call ids and request count when the agent starts (``conversation_snapshot``
is its inverse: what a run hands the agent's next one); ``resume_turns`` is the
one way to go on (or, with a reason, to give up) when asked. What the turn becomes is decided
by one pure function, ``resumed_turn`` (tested alone):

- the next LLM request was due: it is made;
- the last response's calls were stored: results already recorded are kept (never re-run); a
  call that was running is settled (docs/architecture.md, "Interrupted calls"): the result its
  tool's ``reconcile(key)`` found (``snapshot.reconciled``), else it runs again with the same
  key if its tool is idempotent, else INTERRUPTED ("may have run"); a
  call a person approved (in this process or with ``autobyteus-like approve``) runs; one they
  denied gets its DENIED result; the rest are validated and asked about again as if new;
- the last response was the answer: the turn ends with it.
"""

from __future__ import annotations

from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from autobyteus_like.events import (
    ConversationReset,
    PendingToolInvocation,
    ToolResultReceived,
    UserMessageReceived,
)
from autobyteus_like.handlers._context import AgentContext, TurnState
from autobyteus_like.handlers._effects import Effects
from autobyteus_like.handlers._results_message import results_message
from autobyteus_like.handlers._scheduling import TurnSchedule
from autobyteus_like.handlers._turn_steps import (
    advance,
    complete_turn,
    opening_text,
    request_llm,
    reset_conversation,
)
from autobyteus_like.llm._messages import Message
from autobyteus_like.store._records import CallState
from autobyteus_like.tools._invocation import ToolInvocation, ToolResult

if TYPE_CHECKING:
    from collections.abc import Sequence

    from autobyteus_like.store._records import TurnRecord
    from autobyteus_like.store._restore import TurnSnapshot
    from autobyteus_like.tools._registry import ToolRegistry

__all__ = ["ResumePlan", "conversation_snapshot", "restore_context", "resume_turns",
           "resumed_turn"]


@dataclass
class ResumePlan:
    """What the stored turn becomes: its state (the stored results in their slots), and what
    is left to do: the answer to end with, the next request to make (neither: the calls),
    the results to deliver now, the calls to ask about again."""

    turn: TurnState
    answer: str | None = None
    request_due: bool = False
    results: list[ToolResult] = field(default_factory=list)
    pending: list[ToolInvocation] = field(default_factory=list)


def resumed_turn(snapshot: TurnSnapshot, reply: Future[str] | None, tools: ToolRegistry,
                 sequential: bool) -> ResumePlan:
    """The turn state ``snapshot.current`` resumes to (a pure function of its arguments)."""
    record = snapshot.current
    assert record is not None
    turn = TurnState(turn_id=record.turn_id, reply=reply, schedule=TurnSchedule(sequential),
                     mail_id=record.mail_id, iterations=_iterations(snapshot.messages, record),
                     request_no=snapshot.request_no)
    if snapshot.answer is not None:
        return ResumePlan(turn, answer=snapshot.answer.strip())
    if snapshot.calls is None:
        return ResumePlan(turn, request_due=True)
    resumed = ResumePlan(turn)
    turn.response_done = True
    for call in snapshot.calls:
        invocation = call.invocation
        tool = tools.find(invocation.name)
        slot = turn.schedule.add(invocation, tool)
        if call.result is not None:
            turn.schedule.finish(invocation.id, call.result)
        elif call.state is CallState.DENIED:
            resumed.results.append(ToolResult.denied(
                invocation, "by a person while the agent was stopped"))
        elif call.state is CallState.RUNNING and invocation.id in snapshot.reconciled:
            resumed.results.append(snapshot.reconciled[invocation.id])  # its tool found it
        elif call.state is CallState.RUNNING and not (tool is not None and tool.idempotent):
            resumed.results.append(ToolResult.interrupted(invocation))  # may have run
        else:
            slot.approved = call.state in (CallState.APPROVED, CallState.RUNNING)
            resumed.pending.append(invocation)
    turn.schedule.close()
    return resumed


def _iterations(messages: Sequence[Message], record: TurnRecord) -> int:
    """How many LLM requests the stored turn made: the assistant messages after the user
    message that opened it."""
    opening = opening_text(record.text, record.sender)
    count = 0
    for message in reversed(messages):
        if message.role == "user" and message.content == opening:
            return count
        count += message.role == "assistant"
    return count


def restore_context(ctx: AgentContext, snapshot: TurnSnapshot) -> None:
    """Give the context the stored conversation (before any turn runs)."""
    ctx.messages = list(snapshot.messages)
    ctx.ids.restore(snapshot.used_ids)
    ctx.requests = snapshot.request_no


def conversation_snapshot(ctx: AgentContext) -> TurnSnapshot:
    """The conversation, ids and request count as they stand, as the value ``restore_context``
    takes: a run hands it to the agent's next run (no turn in it: a new run begins idle)."""
    from autobyteus_like.store._restore import TurnSnapshot

    return TurnSnapshot(messages=list(ctx.messages), used_ids=ctx.ids.used(),
                        request_no=ctx.requests)


def resume_turns(ctx: AgentContext, snapshot: TurnSnapshot,
                 replies: Sequence[Future[str] | None], abandon: str | None = None) -> Effects:
    """Go on with the stored turns: the one that had begun, then those waiting (a reply for
    each, in ``replies``, in that order). With ``abandon`` (a reason), end them instead: the
    current one's last response gets its results (those recorded, INTERRUPTED for the rest)
    so the conversation stays whole, then it fails with that reason, as do the waiting ones
    (a waiting reset is done)."""
    answers = iter(replies)
    if snapshot.current is not None:
        if abandon is None:
            yield from _resume_current(ctx, snapshot, next(answers, None))
        else:
            yield from _abandon_current(ctx, snapshot, abandon)
    for queued in snapshot.queued:
        if queued.reset:
            reset = ConversationReset(agent=ctx.name, turn_id=queued.turn_id)
            if abandon is None:
                yield reset
            else:
                reset_conversation(ctx, reset)
        elif abandon is None:
            yield UserMessageReceived(agent=ctx.name, text=queued.text,
                                      turn_id=queued.turn_id, sender=queued.sender,
                                      reply=next(answers, None), mail_id=queued.mail_id)
        else:  # it never began: only its record ends
            ctx.env.hooks.turn_ended(TurnState(turn_id=queued.turn_id, reply=None,
                                           schedule=TurnSchedule(ctx.env.sequential),
                                           mail_id=queued.mail_id), ctx.messages, "", abandon)


def _resume_current(ctx: AgentContext, snapshot: TurnSnapshot, reply: Future[str] | None
                    ) -> Effects:
    assert ctx.turn is None
    resumed = resumed_turn(snapshot, reply, ctx.env.tools, ctx.env.sequential)
    turn = ctx.turn = resumed.turn
    if resumed.request_due:
        yield from request_llm(ctx)
        return
    if resumed.answer is not None:
        yield from complete_turn(ctx, resumed.answer)
        return
    turn.parser = ctx.env.format.parser_factory(ctx.env.tools, ctx.ids)
    for result in resumed.results:
        yield ToolResultReceived(agent=ctx.name, result=result)
    for invocation in resumed.pending:
        yield PendingToolInvocation(agent=ctx.name, invocation=invocation)
    yield from advance(ctx)


def _abandon_current(ctx: AgentContext, snapshot: TurnSnapshot, reason: str) -> Effects:
    record = snapshot.current
    assert record is not None
    turn = ctx.turn = TurnState(turn_id=record.turn_id, reply=None,
                                schedule=TurnSchedule(ctx.env.sequential), mail_id=record.mail_id,
                                request_no=snapshot.request_no, response_done=True)
    if snapshot.calls is not None:
        results = []
        for call in snapshot.calls:
            result = call.result
            if result is None:  # recorded now: what its tool found, or it never started,
                result = snapshot.reconciled.get(call.invocation.id) or \
                    ToolResult.interrupted(call.invocation,  # or it may have run
                                           started=call.state is CallState.RUNNING)
                slot = turn.schedule.add(call.invocation, None)
                turn.schedule.finish(call.invocation.id, result)
                ctx.env.hooks.call_finished(turn, slot)
            results.append(result)
        ctx.messages.append(results_message(
            ctx.env.format, [call.invocation for call in snapshot.calls], results))
    yield from complete_turn(ctx, "", reason)

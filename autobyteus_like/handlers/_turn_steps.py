"""The steps of a turn, shared by the handlers: start it, ask the LLM, run the calls the
schedule allows, send the results back in invocation order, end it.

Each step is a generator of effects (``effects``): it changes the turn's state and yields what
the actor must do (``StreamLLM``, ``RunTool``, an event to emit, a ``Reply``, ``EndRun``); the
actor carries each out as it comes.

Every step calls the hooks (``ctx.env.hooks``) unconditionally, before anything that depends on
it; an LLM request and a tool call are claimed from the hooks just before they are made (a
limit refuses one there: the request is never sent, the call gets a LIMIT result and the run
ends once the calls already running are done), and released when, claimed, it is then not made
(``not_made``); ``run_over`` asks the hooks' verdict.
Informational events (status, request started, tool started, turn completed) are built only
when someone takes them (``ctx.wants``).
"""

from __future__ import annotations

from collections.abc import Iterable

from loguru import logger

from autobyteus_like.errors import AgentTurnError
from autobyteus_like.events import (
    AgentStatus,
    ConversationReset,
    LLMRequestStarted,
    ToolResultReceived,
    ToolStarted,
    TurnCompleted,
    UserMessageReceived,
)
from autobyteus_like.handlers._context import AgentContext, TurnState
from autobyteus_like.handlers._effects import Effects, EndRun, Reply, RunTool, StreamLLM
from autobyteus_like.handlers._results_message import results_message
from autobyteus_like.handlers._scheduling import Slot, TurnSchedule
from autobyteus_like.handlers._turn_verdict import TurnVerdict
from autobyteus_like.hooks._culprit import hook_failure
from autobyteus_like.hooks._protocol import CallKind
from autobyteus_like.llm._messages import LLMRequest, Message
from autobyteus_like.tools._context import ToolContext
from autobyteus_like.tools._invocation import ErrorCode, ToolResult
from autobyteus_like.tools._redaction import redact_invocation

__all__ = ["advance", "complete_turn", "not_made", "opening_text", "request_llm",
           "reset_conversation", "run_over", "start_ready_calls", "start_turn", "update_status"]


def opening_text(text: str, sender: str | None) -> str:
    """The user message that opens a turn for ``text`` from ``sender``."""
    return text if sender is None else f"Message from {sender}:\n{text}"


def run_over(ctx: AgentContext) -> EndRun | None:
    """Ask the hooks' verdict: when it ends the run, the ``EndRun`` to yield (the caller then
    does not go on with its step)."""
    error = ctx.env.hooks.verdict()
    return None if error is None else EndRun(error)


def not_made(ctx: AgentContext, kinds: Iterable[CallKind]) -> Effects:
    """Requests or calls the hooks admitted that will not be made after all (a hook failed or
    a verdict ended the run before they went, the run ended or the agent stopped before their
    threads took them): released, so no count holds them. A release that fails is reported."""
    turn = ctx.turn
    for kind in kinds:
        if turn is None:
            logger.warning("agent {}: an unmade {} outside a turn is not released", ctx.name,
                           kind)
            continue
        try:
            ctx.env.hooks.release(turn, kind)
        except Exception as exc:  # the work is gone either way: said, never raised here
            yield ctx.problem(f"an unmade {kind} could not be released ({hook_failure(exc)})",
                              type(exc).__name__)


def start_turn(ctx: AgentContext, message: UserMessageReceived) -> Effects:
    """Begin a turn for ``message`` and ask the LLM."""
    ctx.messages.append(Message("user", opening_text(message.text, message.sender),
                                images=message.images))
    ctx.turn = TurnState(turn_id=message.turn_id, reply=message.reply,
                         schedule=TurnSchedule(ctx.env.sequential), mail_id=message.mail_id)
    ctx.env.hooks.turn_started(ctx.turn, ctx.messages)
    yield from request_llm(ctx)


def request_llm(ctx: AgentContext) -> Effects:
    """Start the next LLM round trip of the turn, unless max_iterations is reached or the
    hooks' verdict ends the run."""
    turn = ctx.turn
    assert turn is not None
    if turn.iterations >= ctx.env.config.max_iterations:
        yield from complete_turn(ctx, "", _iterations_spent(ctx, turn))
        return
    if turn.refused is not None:  # a call was refused by a limit: its run ends here
        yield EndRun(turn.refused)
        return
    if (over := run_over(ctx)) is not None:  # asked before the claim: a request never sent
        yield over  # is not counted (a limit crossed since the last step ends it here)
        return
    error = ctx.env.hooks.claim(turn, "llm_calls")
    if error is not None:
        yield EndRun(error)  # over max_llm_calls: the request is never sent (nor counted)
        return
    ctx.requests += 1
    turn.iterations += 1
    turn.request_no = ctx.requests
    turn.parser = ctx.env.format.parser_factory(ctx.env.tools, ctx.ids)
    turn.response, turn.prose, turn.response_done, turn.held = [], [], False, []
    turn.deferred, turn.failed = [], {}
    if len(turn.schedule):  # the last response's calls (a turn's first is already empty)
        turn.schedule = TurnSchedule(ctx.env.sequential)
    try:
        ctx.env.hooks.request_sent(turn, ctx.messages)  # the results it carries are stored first
    except BaseException:
        yield from not_made(ctx, ("llm_calls",))  # never sent: not counted
        raise
    error = ctx.env.hooks.verdict()
    if error is not None:  # a verdict (a teammate's limit, a hook's own) stops it before it
        yield from not_made(ctx, ("llm_calls",))  # goes: not counted
        yield EndRun(error)
        return
    yield from ctx.set_status(AgentStatus.THINKING)
    if ctx.wants(LLMRequestStarted):
        yield (LLMRequestStarted(
            agent=ctx.name, turn_id=turn.turn_id, request_no=turn.request_no,
            iteration=turn.iterations, message_count=len(ctx.messages),
        ))
    tools = tuple(ctx.env.tools) if ctx.env.native else ()
    yield StreamLLM(turn.request_no, LLMRequest(ctx.env.system_prompt, tuple(ctx.messages), tools),
                    turn.turn_id)


def complete_turn(ctx: AgentContext, answer: str, error: str | None = None,
                  failure: AgentTurnError | None = None) -> Effects:
    """End the turn, answer whoever waits, and start the next waiting message (``failure``:
    the error the caller gets, by default an ``AgentTurnError`` with ``error``)."""
    turn = ctx.turn
    assert turn is not None
    ctx.turn = None
    try:
        ctx.env.hooks.turn_ended(turn, ctx.messages, answer, error)
    except Exception as exc:  # the turn still ends, and says it was not recorded
        error = (f"{error + '; ' if error else ''}the end of the turn could not be recorded "
                 f"({hook_failure(exc)})")  # names the hook and its point
    if error is not None:
        yield ctx.problem(error, "TurnFailed")
    if ctx.wants(TurnCompleted):
        yield TurnCompleted(agent=ctx.name, turn_id=turn.turn_id, answer=answer,
                            error=error, iterations=turn.iterations)
    reply = turn.reply
    if reply is not None and not reply.done():
        # Resolved after this turn's events are published, so whoever waits on the reply
        # (a caller, a team counting messages) never overtakes them.
        yield Reply(reply, answer) if error is None else \
            Reply(reply, error=failure or AgentTurnError(ctx.name, error))
    yield from ctx.set_status(AgentStatus.IDLE)
    while ctx.waiting and ctx.turn is None:
        waiting = ctx.waiting.popleft()
        if isinstance(waiting, ConversationReset):
            try:
                reset_conversation(ctx, waiting)
            except Exception as exc:  # the messages behind it still get their turns
                yield ctx.problem(f"the conversation reset could not be recorded "
                                  f"({hook_failure(exc)}); the history was kept",
                                  type(exc).__name__)
        else:
            yield from start_turn(ctx, waiting)


def reset_conversation(ctx: AgentContext, reset: ConversationReset) -> None:
    """Forget the history (between turns), or start from the one the reset carries (once
    the hooks recorded the reset: one that raises leaves the history as it was)."""
    ctx.env.hooks.conversation_reset(reset)
    ctx.messages[:] = reset.history  # stored with the next turn
    ctx.ids.restore([call.id for message in reset.history  # a new call never takes the id
                     for call in message.tool_calls])       # of a seeded one


def _iterations_spent(ctx: AgentContext, turn: TurnState) -> str:
    """What happened when ``max_iterations`` ends a turn: the LLM still calling tools, or
    asked again because its answer was not accepted (the note it was sent says why)."""
    spent = f"max_iterations ({ctx.env.config.max_iterations}) reached"
    if len(turn.schedule) or not ctx.messages:
        return f"{spent}: the LLM was still calling tools; raise max_iterations or simplify " \
               "the task"
    why = ctx.messages[-1].content[:300]
    return (f"{spent} before the LLM gave an answer that was accepted (it wrote no tool call; "
            f"its last answer was sent back: {why!r}); raise max_iterations above the "
            "retries allowed (output_retries)")


def start_ready_calls(ctx: AgentContext) -> Effects:
    """Start every call the schedule allows now, in invocation order: a ``RunTool`` each."""
    turn = ctx.turn
    if turn is None or ctx.run_stopped.is_set():  # a stopped run starts nothing
        return
    for slot in turn.schedule.startable():
        error = ctx.env.hooks.claim(turn, "tool_calls")
        if error is None:
            yield from _start(ctx, turn, slot)
        else:  # over max_tool_calls: this call never runs; the model is told, the run ends
            turn.refused = turn.refused or error
            yield ToolResultReceived(agent=ctx.name, result=ToolResult.failure(
                slot.invocation, ErrorCode.LIMIT, str(error),
                suggestion="the run ends here; a new run starts from zero",
                recoverable=False, started=False))
    if (over := _only_people_left(turn)) is not None:
        yield over
        return
    yield from update_status(ctx)


def _only_people_left(turn: TurnState) -> EndRun | None:
    """A limit refused a call and every call left waits for a person, whose yes would be
    refused too: the run ends now (the ``EndRun``) instead of waiting for a decision that
    cannot matter."""
    if turn.refused is None or not turn.response_done or \
            not turn.schedule.waiting_only_for_people:
        return None
    return EndRun(turn.refused)


def _start(ctx: AgentContext, turn: TurnState, slot: Slot) -> Effects:
    tool = slot.tool
    assert tool is not None
    try:
        ctx.env.hooks.call_running(turn, slot)  # a session writer commits it before it starts
    except BaseException:
        yield from not_made(ctx, ("tool_calls",))  # never started: not counted
        raise
    if ctx.wants(ToolStarted):
        yield ToolStarted(agent=ctx.name, invocation=slot.invocation)
    timeout = tool.timeout_s if tool.timeout_s is not None else ctx.env.config.tool_timeout_s
    context = ToolContext(agent=ctx.name, invocation_id=slot.invocation.id,
                          sandbox=ctx.env.config.sandbox_for(tool.name), side_llm=ctx.env.side_llm,
                          working_set=ctx.env.working_set, session=ctx.env.session)
    shown = redact_invocation(slot.invocation, tool) if tool.masked_arguments else slot.invocation
    logger.debug("agent {} runs {}({}) why={!r}", ctx.name, shown.name, shown.arguments,
                 shown.why)
    yield RunTool(slot.invocation, tool, timeout, context, slot.bound)


def update_status(ctx: AgentContext) -> Effects:
    """The status the turn's calls imply: waiting for a person (once nothing else can move
    the turn on), or running tools."""
    turn = ctx.turn
    if turn is None:
        return
    if turn.response_done and turn.schedule.waiting_only_for_people:
        yield from ctx.set_status(AgentStatus.AWAITING_APPROVAL)
    elif turn.schedule.running:
        yield from ctx.set_status(AgentStatus.RUNNING_TOOLS)


def advance(ctx: AgentContext) -> Effects:
    """When the response is complete and every call has its result: send the results (in
    invocation order) to the LLM, or end the turn if the response made no calls."""
    turn = ctx.turn
    if turn is None or not turn.response_done:
        return
    schedule = turn.schedule
    if not schedule.done:
        over = _only_people_left(turn)
        yield from update_status(ctx) if over is None else (over,)
        return
    for check in ctx.env.turn_checks:
        if (verdict := check(ctx)) is not None:
            yield from _follow(ctx, verdict)
            return
    if not len(schedule):
        yield from complete_turn(ctx, "".join(turn.prose).strip())
        return
    _add_results(ctx, schedule)
    yield from request_llm(ctx)


def _add_results(ctx: AgentContext, schedule: TurnSchedule) -> None:
    """The response's results, in invocation order, as the conversation's next message."""
    ctx.messages.append(results_message(ctx.env.format, schedule.invocations(), schedule.results()))


def _follow(ctx: AgentContext, verdict: TurnVerdict) -> Effects:
    """Do what a turn check decided."""
    if verdict.failure is not None:
        yield from complete_turn(ctx, "", verdict.failure.message, verdict.failure)
    elif verdict.answer is not None:
        turn = ctx.turn
        if turn is not None and len(turn.schedule):  # no call without its result (stored
            _add_results(ctx, turn.schedule)         # with the turn's end)
        finish = verdict.finish
        yield from complete_turn(ctx, verdict.answer if finish is None
                                 else finish(ctx.messages))
    else:
        ctx.messages.append(Message("user", verdict.note or ""))
        yield from request_llm(ctx)

"""Where a stored agent stands, read back as one value: a ``TurnSnapshot``.

Pure reading of the store's own records: the history, the turn that had begun, the turns
waiting behind it and, when the last response's calls were stored, where each stands. The turn
machine builds its turn from the snapshot (``handlers/_turn_resume.py``); nothing here knows it.

The history's last message says where the turn stood: a user message (the turn's own, or the
results of the last response) means the next LLM request is due; an assistant message means
the response was complete, and its calls (stored with it, in one write) say what is left.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from autobyteus_like.llm._messages import Message
from autobyteus_like.store._fork import copied_seqs
from autobyteus_like.store._records import CallRecord, CallState, MessageRecord, TurnRecord
from autobyteus_like.store._store import SessionStore
from autobyteus_like.tools._image_content import ImageContent
from autobyteus_like.tools._invocation import ToolInvocation, ToolResult

__all__ = ["SnapshotCall", "TurnSnapshot", "message_from", "restore_agent"]


def message_from(record: MessageRecord) -> Message:
    """A stored history message, as the agent had it."""
    return Message(
        role=record.role,  # type: ignore[arg-type]
        content=record.content,
        tool_calls=tuple(ToolInvocation.model_validate(call) for call in record.tool_calls),
        tool_results=tuple(ToolResult.model_validate(res) for res in record.tool_results),
        carried=tuple(record.carried),
        images=tuple(ImageContent.model_validate(image) for image in record.images),
    )


@dataclass(frozen=True)
class SnapshotCall:
    """One call of the response the unfinished turn was working on."""

    invocation: ToolInvocation
    state: CallState
    result: ToolResult | None


@dataclass
class TurnSnapshot:
    """Everything an agent resumes from."""

    messages: list[Message] = field(default_factory=list)
    current: TurnRecord | None = None
    """The turn that had begun and not ended."""
    queued: list[TurnRecord] = field(default_factory=list)
    """Turns received and not begun, oldest first."""
    request_no: int = 0
    """The last LLM request the agent made (its next one is numbered after it)."""
    calls: list[SnapshotCall] | None = None
    """The calls of the current turn's last response, when it had calls; None otherwise."""
    answer: str | None = None
    """The current turn's last response, when it was complete and made no calls (only the
    turn's end was not recorded)."""
    used_ids: list[str] = field(default_factory=list)
    """Every call id the session has used, oldest first."""
    last_turn_id: int = 0
    inherited_replies: int = 0
    """How many of the history's assistant replies the agent did not write itself: those a
    fork copied from its origin, and those it was given (a conversation handed over to it, a
    seeded history: stored without the request that wrote them); a scripted model skips only
    the others."""
    reconciled: dict[str, ToolResult] = field(default_factory=dict)
    """Call id -> the result its tool's ``reconcile(key)`` found for a call that was running
    when the process stopped (filled when the agent resumes, before the turn machine)."""

    @property
    def unfinished(self) -> bool:
        """Whether anything is left to do."""
        return self.current is not None or bool(self.queued)


def restore_agent(store: SessionStore, session: str, agent: str) -> TurnSnapshot:
    """Read ``agent``'s state in ``session``."""
    records = store.history(session, agent)
    turns = store.turns(session, agent)
    calls = store.calls(session, agent)
    snapshot = TurnSnapshot(messages=[message_from(record) for record in records])
    snapshot.last_turn_id = max((turn.turn_id for turn in turns), default=0)
    copied = copied_seqs(store, session).get(agent, 0)
    snapshot.inherited_replies = sum(
        1 for record in records if record.role == "assistant"
        and (record.seq < copied or record.request_no is None))
    snapshot.used_ids = [call.invocation_id for call in calls]
    snapshot.used_ids += [call.id for message in snapshot.messages
                          for call in message.tool_calls]
    snapshot.request_no = max([call.request_no for call in calls]
                              + [record.request_no or 0 for record in records] + [0])
    open_turns = [turn for turn in turns if turn.state == "open"]
    snapshot.queued = [turn for turn in turns if turn.state == "queued"]
    if not open_turns:
        return snapshot
    current = snapshot.current = open_turns[0]
    last = records[-1] if records else None
    if last is None or last.role != "assistant":
        return snapshot  # the next LLM request is due
    of_response = [call for call in calls
                   if call.turn_id == current.turn_id and call.request_no == last.request_no]
    if of_response:
        snapshot.calls = [_snapshot_call(call) for call in of_response]
    else:
        snapshot.answer = last.content
    return snapshot


def _snapshot_call(call: CallRecord) -> SnapshotCall:
    invocation = ToolInvocation(id=call.invocation_id, name=call.name,
                                arguments=call.arguments, why=call.why)
    result = None if call.result is None else ToolResult.model_validate(call.result)
    return SnapshotCall(invocation, call.state, result)

"""Where a stored agent stands: its history, the turn it was in, the turns waiting behind it,
read back from a session store. Pure reading; ``handlers/turn_resume.py`` acts on it.

The history's last message says where the turn stood: a user message (the turn's own, or the
results of the last response) means the next LLM request is due; an assistant message means
the response was complete, and its calls (stored with it, in one write) say what is left.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from autobyteus_like.llm.messages import Message
from autobyteus_like.store.journal import message_from
from autobyteus_like.store.records import CallRecord, CallState, TurnRecord
from autobyteus_like.store.session_store import SessionStore
from autobyteus_like.tools.invocation import ToolInvocation, ToolResult

__all__ = ["RestoredAgent", "RestoredCall", "restore_agent"]


@dataclass(frozen=True)
class RestoredCall:
    """One call of the response the unfinished turn was working on."""

    invocation: ToolInvocation
    state: CallState
    result: ToolResult | None


@dataclass
class RestoredAgent:
    """What an agent resumes from."""

    messages: list[Message] = field(default_factory=list)
    current: TurnRecord | None = None
    """The turn that had begun and not ended."""
    queued: list[TurnRecord] = field(default_factory=list)
    """Turns received and not begun, oldest first."""
    request_no: int = 0
    """The last LLM request the agent made (its next one is numbered after it)."""
    calls: list[RestoredCall] | None = None
    """The calls of the current turn's last response, when it had calls; None otherwise."""
    answer: str | None = None
    """The current turn's last response, when it was complete and made no calls (only the
    turn's end was not recorded)."""
    used_ids: list[str] = field(default_factory=list)
    """Every call id the session has used, oldest first."""
    last_turn_id: int = 0

    @property
    def unfinished(self) -> bool:
        """Whether anything is left to do."""
        return self.current is not None or bool(self.queued)


def restore_agent(store: SessionStore, session: str, agent: str) -> RestoredAgent:
    """Read ``agent``'s state in ``session``."""
    records = store.history(session, agent)
    turns = store.turns(session, agent)
    calls = store.calls(session, agent)
    restored = RestoredAgent(messages=[message_from(record) for record in records])
    restored.last_turn_id = max((turn.turn_id for turn in turns), default=0)
    restored.used_ids = [call.invocation_id for call in calls]
    restored.used_ids += [call.id for message in restored.messages
                          for call in message.tool_calls]
    restored.request_no = max([call.request_no for call in calls]
                              + [record.request_no or 0 for record in records] + [0])
    open_turns = [turn for turn in turns if turn.state == "open"]
    restored.queued = [turn for turn in turns if turn.state == "queued"]
    if not open_turns:
        return restored
    current = restored.current = open_turns[0]
    last = records[-1] if records else None
    if last is None or last.role != "assistant":
        return restored  # the next LLM request is due
    of_response = [call for call in calls
                   if call.turn_id == current.turn_id and call.request_no == last.request_no]
    if of_response:
        restored.calls = [_restored(call) for call in of_response]
    else:
        restored.answer = last.content
    return restored


def _restored(call: CallRecord) -> RestoredCall:
    invocation = ToolInvocation(id=call.invocation_id, name=call.name,
                                arguments=call.arguments, why=call.why)
    result = None if call.result is None else ToolResult.model_validate(call.result)
    return RestoredCall(invocation, call.state, result)

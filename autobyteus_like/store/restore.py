"""Where a stored agent stands: its history, its unfinished turn and the calls of that turn's
last response, read back from a session store. Pure reading; the agent acts on the result.

Rules (issue 13): results already recorded are never re-run; a call that was running when the
process died comes back as INTERRUPTED (or runs again if its tool is marked idempotent); calls
waiting for approval are asked again; calls parsed or approved but never started start now.
"""

from __future__ import annotations

from collections.abc import Sequence
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
    open_turns: list[TurnRecord] = field(default_factory=list)
    """Turns received and not finished, oldest first; the first may have begun."""
    current_started: bool = False
    """Whether the first open turn had begun (its message is in the history)."""
    pending_calls: list[RestoredCall] = field(default_factory=list)
    """The calls of the last response, if the turn was running them."""
    request_no: int = 0
    """The last LLM request the turn made (0: none)."""
    final_answer: str | None = None
    """The answer, if the turn's last response was one (only its end was not recorded)."""
    used_ids: set[str] = field(default_factory=set)
    last_turn_id: int = 0


def restore_agent(store: SessionStore, session: str, agent: str) -> RestoredAgent:
    """Read ``agent``'s state in ``session``."""
    records = store.history(session, agent)
    restored = RestoredAgent(messages=[message_from(record) for record in records])
    turns = store.turns(session, agent)
    restored.last_turn_id = max((turn.turn_id for turn in turns), default=0)
    restored.open_turns = [turn for turn in turns if turn.state == "open"]
    calls = store.calls(session, agent)
    restored.used_ids = {call.invocation_id for call in calls}
    for message in restored.messages:
        restored.used_ids.update(call.id for call in message.tool_calls)
    if not restored.open_turns:
        return restored
    current = restored.open_turns[0]
    started = [i for i, record in enumerate(records)
               if record.role == "user" and _starts(record.content, current)]
    restored.current_started = bool(started) and _since_last_turn(records, started[-1],
                                                                  turns, current)
    if not restored.current_started or not records:
        return restored
    last = records[-1]
    if last.role != "assistant":
        return restored  # the next LLM request is due
    request_no = int(_request_no(store, session, agent, last.seq))
    restored.request_no = request_no
    of_response = [call for call in calls
                   if call.turn_id == current.turn_id and call.request_no == request_no]
    if of_response:
        restored.pending_calls = [_restored(call) for call in of_response]
    else:
        restored.final_answer = last.content
    return restored


def _starts(content: str, turn: TurnRecord) -> bool:
    """Whether a user message is the one that began ``turn``."""
    expected = turn.text if turn.sender is None else f"Message from {turn.sender}:\n{turn.text}"
    return content == expected


def _since_last_turn(records: Sequence[object], index: int, turns: list[TurnRecord],
                     current: TurnRecord) -> bool:
    """The message at ``index`` began the current turn unless a later finished turn shares its
    text (the same words sent twice): then it belongs to that one."""
    finished_same = [t for t in turns if t.state != "open" and t.turn_id > current.turn_id
                     and t.text == current.text and t.sender == current.sender]
    return not finished_same


def _request_no(store: SessionStore, session: str, agent: str, seq: int) -> int:
    rows = store.database.execute(
        "SELECT data FROM messages WHERE session = ? AND agent = ? AND seq = ?",
        (session, agent, seq))
    import json

    return int(json.loads(rows[0][0]).get("request_no", 0)) if rows else 0


def _restored(call: CallRecord) -> RestoredCall:
    invocation = ToolInvocation(id=call.invocation_id, name=call.name,
                                arguments=call.arguments, why=call.why)
    result = None if call.result is None else ToolResult.model_validate(call.result)
    return RestoredCall(invocation, call.state, result)

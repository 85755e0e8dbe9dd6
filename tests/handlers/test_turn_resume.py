"""What a stored turn resumes to, decided by one pure function of the snapshot: recorded
results are kept, a call that was running comes back INTERRUPTED (or runs again when its tool
is idempotent), a denial while stopped is DENIED, approved calls run without asking again, the
rest are asked about again; an answer ends the turn; otherwise the next request is due."""

from __future__ import annotations

from autobyteus_like import ToolRegistry, tool
from autobyteus_like.handlers._scheduling import SlotState
from autobyteus_like.handlers._turn_resume import resumed_turn
from autobyteus_like.llm._messages import Message
from autobyteus_like.store._records import CallState, TurnRecord
from autobyteus_like.store._restore import SnapshotCall, TurnSnapshot
from autobyteus_like.tools._invocation import ErrorCode, ToolInvocation, ToolResult


@tool
def write(text: str) -> str:
    """Write it."""
    return text


@tool(idempotent=True)
def read(path: str) -> str:
    """Read it."""
    return path


TOOLS = ToolRegistry([write, read])
OPENING = TurnRecord(agent="a", turn_id=3, text="go", sender=None, mail_id="mail-1",
                     state="open")


def snapshot(**fields: object) -> TurnSnapshot:
    messages = [Message("user", "earlier"), Message("assistant", "ok"), Message("user", "go"),
                Message("assistant", "calling"), Message("user", "results"),
                Message("assistant", "calling again")]
    return TurnSnapshot(messages=messages, current=OPENING, request_no=7, **fields)  # type: ignore[arg-type]


def call(call_id: str, name: str, state: CallState, result: ToolResult | None = None
         ) -> SnapshotCall:
    return SnapshotCall(ToolInvocation(id=call_id, name=name, arguments={"text": "x"}), state,
                        result)


def test_every_stored_state_of_a_call_resumes_to_its_own_next_step():
    done = ToolResult.success(ToolInvocation(id="c1", name="write"), "written")
    calls = [call("c1", "write", CallState.SUCCEEDED, done),
             call("c2", "write", CallState.DENIED),
             call("c3", "write", CallState.RUNNING),
             call("c4", "read", CallState.RUNNING),
             call("c5", "write", CallState.APPROVED),
             call("c6", "write", CallState.WAITING_APPROVAL),
             call("c7", "gone", CallState.PARSED)]
    resumed = resumed_turn(snapshot(calls=calls), None, TOOLS, sequential=False)
    turn = resumed.turn
    assert (turn.turn_id, turn.mail_id, turn.request_no, turn.iterations) == (3, "mail-1", 7, 2)
    assert turn.response_done and resumed.answer is None and not resumed.request_due
    slots = list(turn.calls())
    assert [s.invocation.id for s in slots] == ["c1", "c2", "c3", "c4", "c5", "c6", "c7"]
    assert slots[0].state is SlotState.DONE and slots[0].result == done  # never re-run
    assert [(r.invocation_id, r.error.code) for r in resumed.results if r.error] == [
        ("c2", ErrorCode.DENIED), ("c3", ErrorCode.INTERRUPTED)]
    assert resumed.results[0].error.message == "denied: by a person while the agent was stopped"
    assert [i.id for i in resumed.pending] == ["c4", "c5", "c6", "c7"]
    assert [s.approved for s in slots[3:]] == [True, True, False, False]
    assert slots[6].tool is None  # a tool gone since: asked about again, it fails as unknown


def test_a_stored_answer_ends_the_turn_and_no_calls_means_the_next_request():
    answered = resumed_turn(snapshot(answer="  the answer \n"), None, TOOLS, sequential=True)
    assert answered.answer == "the answer" and not answered.request_due
    due = resumed_turn(snapshot(), None, TOOLS, sequential=True)
    assert due.request_due and due.answer is None and not len(due.turn.schedule)


def test_the_function_is_pure_the_snapshot_is_left_as_it_was():
    calls = [call("c3", "write", CallState.RUNNING)]
    stored = snapshot(calls=calls)
    before = (list(stored.messages), list(stored.calls or []), stored.request_no)
    first = resumed_turn(stored, None, TOOLS, sequential=False)
    second = resumed_turn(stored, None, TOOLS, sequential=False)
    assert (list(stored.messages), list(stored.calls or []), stored.request_no) == before
    assert first.results == second.results and first.turn is not second.turn

"""A session's outline (what a test of it asserts) and the readable differences of two.

The outline holds, per member, its turns (message, answer) and its calls in order with their
arguments, their results' statuses and the decision a person took on them; the team's mail; and
the final answer (parsed from JSON when it is JSON: a typed answer compares as a value). It is
read from a store, so a recorded session and its replay are outlined by the same code.
"""

from __future__ import annotations

import difflib
import json
from collections import Counter
from typing import Any

from autobyteus_like.store._records import CallState
from autobyteus_like.store._store import SessionStore

__all__ = ["Outline", "compare_outlines", "session_outline", "shown_call"]

Outline = dict[str, Any]


def session_outline(store: SessionStore, session: str) -> Outline:
    """What happened in ``session``: members' turns and calls, mail, the final answer."""
    mail = store.mail(session)
    agents = sorted(set(store.agents(session)) | {m.recipient for m in mail})
    members: dict[str, Any] = {}
    for agent in agents:
        tools = store.recordings.tools(session, agent)
        calls = []
        for call in store.calls(session, agent):
            decision = None
            if call.state is CallState.DENIED:
                error = (call.result or {}).get("error") or {}
                decision = str(error.get("message", "denied"))  # "denied: REASON"
            elif call.state is CallState.WAITING_APPROVAL:
                decision = "waiting"
            elif tools.get(call.name, {}).get("requires_approval"):
                decision = "approved"
            calls.append({"turn": call.turn_id, "name": call.name, "arguments": call.arguments,
                          "status": call.state.value, "decision": decision})
        turns = [{"turn": turn.turn_id, "from": turn.sender, "message": turn.text,
                  "answer": turn.answer, "error": turn.error}
                 for turn in store.turns(session, agent) if not turn.reset]
        members[agent] = {"turns": turns, "calls": calls}
    answer = None
    users = [m for m in mail if m.sender is None]
    if users:
        answer = _typed(users[-1].answer)
    return {"members": members,
            "mail": [{"from": m.sender, "to": m.recipient, "content": m.content}
                     for m in mail if m.sender is not None],
            "user_messages": [m.content for m in users],
            "answer": answer}


def _typed(answer: str | None) -> Any:
    if answer is None:
        return None
    try:
        return json.loads(answer)
    except ValueError:
        return answer


def compare_outlines(expected: Outline, actual: Outline) -> list[str]:
    """What differs, in words (empty: the same): per member a call added, dropped, reordered,
    or with different arguments or status, then the mail, the answers and the final answer."""
    problems: list[str] = []
    for member in sorted(set(expected["members"]) | set(actual["members"])):
        want = expected["members"].get(member)
        got = actual["members"].get(member)
        if want is None or got is None:
            problems.append(f"member {member!r}: " + ("not in the recording" if want is None
                                                      else "did nothing in the replay"))
            continue
        problems += [f"{member}: {text}" for text in _call_changes(want["calls"], got["calls"])]
        want_answers = [turn["answer"] for turn in want["turns"]]
        got_answers = [turn["answer"] for turn in got["turns"]]
        if want_answers != got_answers:
            problems.append(f"{member}: different answers: expected {want_answers!r}, "
                            f"got {got_answers!r}")
    if expected["mail"] != actual["mail"]:
        problems.append("different mail:\n" + _lines_diff(expected["mail"], actual["mail"]))
    if expected["answer"] != actual["answer"]:
        problems.append(f"different final answer: expected {expected['answer']!r}, "
                        f"got {actual['answer']!r}")
    return problems


def _call_changes(want: list[dict[str, Any]], got: list[dict[str, Any]]) -> list[str]:
    shown_want = [shown_call(call) for call in want]
    shown_got = [shown_call(call) for call in got]
    if shown_want == shown_got:
        return []
    if Counter(shown_want) == Counter(shown_got):
        moved = [f"{a} <-> {b}" for a, b in zip(shown_want, shown_got, strict=True) if a != b]
        return [f"calls reordered: {'; '.join(moved)}"]
    out = []
    matcher = difflib.SequenceMatcher(a=shown_want, b=shown_got, autojunk=False)
    for op, a0, a1, b0, b1 in matcher.get_opcodes():
        if op == "insert":
            out += [f"call added: {call}" for call in shown_got[b0:b1]]
        elif op == "delete":
            out += [f"call dropped: {call}" for call in shown_want[a0:a1]]
        elif op == "replace":
            for old, new, old_call, new_call in zip(shown_want[a0:a1], shown_got[b0:b1],
                                                     want[a0:a1], got[b0:b1], strict=False):
                if old_call["name"] == new_call["name"] and \
                        old_call["arguments"] != new_call["arguments"]:
                    out.append(f"different arguments: expected {old}, got {new}")
                else:
                    out.append(f"call changed: expected {old}, got {new}")
            out += [f"call dropped: {call}" for call in shown_want[a0 + (b1 - b0):a1]]
            out += [f"call added: {call}" for call in shown_got[b0 + (a1 - a0):b1]]
    return out


def shown_call(call: dict[str, Any]) -> str:
    """One call in one line: name(arguments) -> status [decision]."""
    arguments = json.dumps(call["arguments"], sort_keys=True, ensure_ascii=False)
    decision = f" [{call['decision']}]" if call.get("decision") else ""
    return f"{call['name']}({arguments}) -> {call['status']}{decision}"


def _lines_diff(want: list[Any], got: list[Any]) -> str:
    return "\n".join(difflib.unified_diff(
        [json.dumps(item, ensure_ascii=False) for item in want],
        [json.dumps(item, ensure_ascii=False) for item in got],
        "expected", "replayed", lineterm=""))

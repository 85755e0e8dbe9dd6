"""``sessions diff A B``: where two sessions part ways (a session and its fork, a recording and
its replay): per member the first request or response that differs, then the calls and the
answers side by side."""

from __future__ import annotations

from itertools import zip_longest
from typing import Any

from rich.console import Console
from rich.table import Table

from autobyteus_like.errors import UsageError
from autobyteus_like.store._store import SessionStore
from autobyteus_like.testing._outline import compare_outlines, session_outline, shown_call
from autobyteus_like.testing._requests import diff_text, shown_request

__all__ = ["first_differences", "print_diff"]


def first_differences(store: SessionStore, first: str, second: str) -> list[str]:
    """Per member, the first request or response of ``first`` and ``second`` that differ."""
    out = []
    members = sorted(set(store.recordings.agents(first)) | set(store.recordings.agents(second)))
    for member in members:
        pairs = zip_longest(_round_trips(store, first, member),
                            _round_trips(store, second, member))
        for number, (old, new) in enumerate(pairs, start=1):
            if old is None or new is None:
                which = first if new is None else second
                out.append(f"{member}: only {which} has request {number} and on")
                break
            if old[0] != new[0]:
                out.append(f"{member}: request {number} differs:\n"
                           + diff_text(old[0], new[0], (first, second)))
                break
            if old[1] != new[1]:
                out.append(f"{member}: the response to request {number} differs:\n"
                           + diff_text(old[1], new[1], (first, second)))
                break
    return out


def _round_trips(store: SessionStore, session: str, member: str
                 ) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    responses = {r["seq"]: r for r in store.recordings.responses(session, member)}
    out = []
    for request in store.recordings.requests(session, member):
        response = responses.get(request["seq"], {})
        out.append((shown_request(request), {
            "text": response.get("text"), "error": response.get("error"),
            "tool_calls": [{"name": c["name"], "arguments": c["arguments"]}
                           for c in response.get("tool_calls", [])]}))
    return out


def print_diff(store: SessionStore, first: str, second: str, console: Console | None = None
               ) -> int:
    """Print where ``first`` and ``second`` part ways; 0 when they do not, else 1."""
    for name in (first, second):
        if store.session(name) is None:
            raise UsageError(f"no session named {name!r}")
    console = console or Console(highlight=False, soft_wrap=True)
    a, b = session_outline(store, first), session_outline(store, second)
    differences = first_differences(store, first, second)
    for text in differences:
        console.print(text, markup=False)
    for member in sorted(set(a["members"]) | set(b["members"])):
        table = Table(title=f"{member}: calls and answers", show_lines=False)
        table.add_column(first, overflow="fold")
        table.add_column(second, overflow="fold")
        left, right = a["members"].get(member, {}), b["members"].get(member, {})
        for old, new in zip_longest(left.get("calls", []), right.get("calls", [])):
            mark = "" if old == new else "[bold red]"
            table.add_row(mark + _escaped(shown_call(old) if old else ""),
                          mark + _escaped(shown_call(new) if new else ""))
        for old, new in zip_longest(left.get("turns", []), right.get("turns", [])):
            table.add_row(_escaped(f"answer: {old['answer']!r}" if old else ""),
                          _escaped(f"answer: {new['answer']!r}" if new else ""))
        console.print(table)
    outline_changes = compare_outlines(a, b)
    if not differences and not outline_changes:
        console.print(f"{first} and {second} do not differ", markup=False)
        return 0
    return 1


def _escaped(text: str) -> str:
    return text.replace("[", r"\[")

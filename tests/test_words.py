"""One word for one idea (docs/architecture.md, "Words for what is kept"), read from the
package's source and the docs so that a retired word does not come back: the session writer
is no "journal", a session is never "durable" (only a commit is), and "ledger" means only a
run's usage figures (``usage.budget.UsageLedger``)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import autobyteus_like

ROOT = Path(autobyteus_like.__file__).parent
REPO = ROOT.parent


def _texts() -> dict[str, str]:
    """Every module of the package, every doc and the README, by path."""
    paths = [*ROOT.rglob("*.py"), *(REPO / "docs").glob("*.md"), REPO / "README.md"]
    return {path.relative_to(REPO).as_posix(): path.read_text(encoding="utf-8")
            for path in paths if path.is_file()}


def _found(pattern: str, texts: dict[str, str]) -> list[str]:
    return sorted(f"{path}:{text.count(chr(10), 0, match.start()) + 1}: {match.group(0)!r}"
                  for path, text in texts.items()
                  for match in re.finditer(pattern, text, re.IGNORECASE))


def test_the_session_writer_is_not_called_a_journal():
    found = _found(r"journal(?!_mode)", _texts())  # SQLite's journal_mode is its own word
    assert not found, f"'journal' for the session writer: {found}"


def test_a_session_is_never_called_durable():
    """"durable" says what a commit survives (``durability="process"`` or ``"power"``)."""
    found = _found(r"durable\s+(?:team\s+)?sessions?", _texts())
    assert not found, f"'durable' before 'session': {found}"


def test_a_ledger_is_only_a_run_s_usage_figures():
    outside = [place for place in _found(r"ledger", _texts())
               if not place.startswith(("autobyteus_like/usage/",
                                        "autobyteus_like/runtime/_ray_usage.py"))]
    assert not outside, f"'ledger' outside usage: {outside}"


def test_the_checks_see_what_they_forbid():
    texts = {"a.md": "With a durable session the store keeps it.\nthe journal writes"}
    assert len(_found(r"durable\s+(?:team\s+)?sessions?", texts)) == 1
    assert _found(r"journal(?!_mode)", texts) == ["a.md:2: 'journal'"]


WORDINGS = {
    "denied: ": "autobyteus_like/tools/_invocation.py",
    "was running when": "autobyteus_like/tools/_invocation.py",
    "do not retry this call unchanged": "autobyteus_like/tools/_invocation.py",
    "stopped before the turn finished": "autobyteus_like/agent/_member_replies.py",
    "is not running; use": "autobyteus_like/agent/_member_replies.py",
}
"""Wordings written once: a denied or interrupted call (``ToolResult.denied``/``interrupted``),
a reply failed by a stop and a message to a member not running (one for every runtime)."""


@pytest.mark.parametrize("wording", sorted(WORDINGS))
def test_a_wording_is_written_in_one_place(wording):
    """Every other module calls the one that holds it (the turn machine, resume, the command
    line's ``deny``, the local actor and the Ray member)."""
    found = set()
    for path, text in _texts().items():
        if not path.endswith(".py"):
            continue
        tree = ast.parse(text)
        prose = {id(node.value) for node in ast.walk(tree)  # docstrings: about it, not it
                 if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)}
        if any(isinstance(node, ast.Constant) and isinstance(node.value, str)
               and id(node) not in prose and wording in node.value
               for node in ast.walk(tree)):
            found.add(path)
    assert found == {WORDINGS[wording]}

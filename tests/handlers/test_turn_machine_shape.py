"""What the turn machine's source must keep true (issue 21), read with ``ast``: handlers call
the hooks unconditionally (no branch asking whether a store, a meter, a tracer or a log
exists), and only the turn machine ends a turn: a ``TurnCompleted`` is built in handlers/
alone, and the functions that end a turn or a run are called from handlers/ and the actor
that drives them, nowhere else (a limit only answers ``claim``/``verdict``)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import autobyteus_like

ROOT = Path(autobyteus_like.__file__).parent
WATCHERS = ("hook", "session", "store", "meter", "tracer", "span", "journal", "writer", "log")
"""What a handler must never ask about: all of it is behind ``ctx.hooks``."""
TURN_ENDINGS = {"complete_turn", "end_run", "run_over", "refuse"}
"""The turn machine's own ways to end a turn or a run (handlers/_turn_steps.py, run_end.py)."""
DRIVER = "agent/_actor.py"


def _trees(under: str | None = None) -> dict[str, ast.AST]:
    return {path.relative_to(ROOT).as_posix(): ast.parse(path.read_text(encoding="utf-8"))
            for path in sorted(ROOT.rglob("*.py"))
            if under is None or path.relative_to(ROOT).as_posix().startswith(under)}


def _outside_constructors(tree: ast.AST) -> list[ast.AST]:
    """Every node, save those of ``__init__`` (where the hooks default to the no-op)."""
    inside = {id(node) for function in ast.walk(tree)
              if isinstance(function, ast.FunctionDef) and function.name == "__init__"
              for node in ast.walk(function)}
    return [node for node in ast.walk(tree) if id(node) not in inside]


def _asks_whether_a_watcher_exists(tree: ast.AST) -> list[str]:
    found = []
    for node in _outside_constructors(tree):
        tested: ast.expr | None = None
        if isinstance(node, ast.Compare) and any(
                isinstance(op, ast.Is | ast.IsNot) for op in node.ops) and any(
                isinstance(c, ast.Constant) and c.value is None for c in node.comparators):
            tested = node.left
        elif isinstance(node, ast.If | ast.IfExp | ast.While):
            tested = node.test  # a bare truth test: ``if ctx.journal:``
            if isinstance(tested, ast.UnaryOp):
                tested = tested.operand
            if not isinstance(tested, ast.Name | ast.Attribute):
                tested = None
        if tested is not None:
            text = ast.unparse(tested)
            if any(word in text.rsplit(".", 1)[-1].lower() for word in WATCHERS):
                found.append(f"{node.lineno}: {ast.unparse(node)[:60]}")
    return found


def test_handlers_call_the_hooks_unconditionally():
    asked = {path: found for path, tree in _trees("handlers/").items()
             if (found := _asks_whether_a_watcher_exists(tree))}
    assert not asked, f"handlers asking whether a watcher exists: {asked}"


@pytest.mark.parametrize("source", [
    "if ctx.journal is not None:\n    ctx.journal.write()",
    "if ctx.session_log:\n    pass",
    "x = 1 if self.meter is None else 2",
])
def test_the_check_sees_a_branch_on_a_watcher(source):
    assert _asks_whether_a_watcher_exists(ast.parse(source))


def test_only_the_turn_machine_builds_a_turn_s_end():
    building = sorted(path for path, tree in _trees().items()
                      if not path.startswith("handlers/")
                      for node in ast.walk(tree)
                      if isinstance(node, ast.Call) and ast.unparse(node.func).endswith(
                          "TurnCompleted"))
    assert not building, f"TurnCompleted built outside the turn machine: {building}"


def test_only_the_turn_machine_and_its_driver_end_a_turn_or_a_run():
    calling = sorted(f"{path}: {name}" for path, tree in _trees().items()
                     if not path.startswith("handlers/") and path != DRIVER
                     for node in ast.walk(tree)
                     if isinstance(node, ast.Call)
                     and (name := ast.unparse(node.func).rsplit(".", 1)[-1]) in TURN_ENDINGS)
    assert not calling, f"turns or runs ended outside the turn machine: {calling}"


SPECIAL = {"needs_whole_response", "whole_response_first", "budget", "on_exceeded"}
"""What the turn machine once knew of two hooks (the session writer's whole-response rule, the
meter's budget): each now answers an ordinary point (``admit_early``, ``run_started``)."""


def _hook_classes(trees: dict[str, ast.AST]) -> set[str]:
    """The names of every class of the package that is (transitively) an ``AgentHooks``."""
    bases = {node.name: {ast.unparse(base).rsplit(".", 1)[-1] for base in node.bases}
             for tree in trees.values() for node in ast.walk(tree)
             if isinstance(node, ast.ClassDef)}
    hooks, grown = {"AgentHooks"}, True
    while grown:
        found = {name for name, of in bases.items() if of & hooks} - hooks
        hooks |= found
        grown = bool(found)
    return hooks


def _special_cases(tree: ast.AST, hooks: set[str]) -> list[str]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and ast.unparse(node.func) in ("isinstance", "issubclass"):
            named = {ast.unparse(part).rsplit(".", 1)[-1] for part in ast.walk(node.args[1])}
            if named & hooks:
                found.append(f"{node.lineno}: {ast.unparse(node)[:60]}")
        elif isinstance(node, ast.Attribute) and node.attr in SPECIAL:
            found.append(f"{node.lineno}: .{node.attr}")
    return found


def test_no_hook_is_a_special_case_of_the_turn_machine_or_its_driver():
    trees = _trees()
    hooks = _hook_classes(trees)
    assert {"AgentMeter", "SessionWriter", "CompositeHooks"} <= hooks
    special = {path: found for path, tree in trees.items()
               if path.startswith("handlers/") or path in (DRIVER, "agent/_turn_services.py")
               if (found := _special_cases(tree, hooks))}
    assert not special, f"hooks special-cased by the turn machine: {special}"


@pytest.mark.parametrize("source", [
    "for hook in hooks:\n    if isinstance(hook, AgentMeter):\n        hook.budget.on_exceeded(f)",
    "ctx.whole_response_first = ctx.hooks.needs_whole_response",
])
def test_the_check_sees_a_special_case(source):
    assert _special_cases(ast.parse(source), {"AgentHooks", "AgentMeter"})

"""Settling a call its process died running, before the turn machine goes on (resume or
abandon): its tool's ``reconcile(key)`` is asked, with the call's idempotency key, whether the
side effect happened; the outcome it returns becomes the call's result (stored then, as any
result). A tool without one, or one that answers None, leaves the call to the next rule
(an idempotent tool runs again with the same key, else INTERRUPTED: "may have run").

It runs on the thread that resumes (the caller's), never on the agent's actor: a reconcile
may ask a remote service.
"""

from __future__ import annotations

import asyncio
import inspect
from typing import TYPE_CHECKING, Any

from loguru import logger

from autobyteus_like.agent._call_results import success_result
from autobyteus_like.store._records import CallState
from autobyteus_like.tools._context import call_key
from autobyteus_like.tools._invocation import ToolResult
from autobyteus_like.tools._result_values import DEFAULT_MAX_RESULT_CHARS

if TYPE_CHECKING:
    from autobyteus_like.store._restore import TurnSnapshot
    from autobyteus_like.tools._registry import ToolRegistry

__all__ = ["reconcile_running"]


def reconcile_running(snapshot: TurnSnapshot, tools: ToolRegistry, agent: str,
                      session: str | None, max_chars: int = DEFAULT_MAX_RESULT_CHARS) -> None:
    """Fill ``snapshot.reconciled`` with the outcome each running call's tool found."""
    for call in snapshot.calls or ():
        if call.state is not CallState.RUNNING or call.result is not None:
            continue
        tool = tools.find(call.invocation.name)
        if tool is None or tool.reconcile is None:
            continue
        key = call_key(agent, call.invocation.id, session)
        try:
            outcome = _settled(tool.reconcile(key))
        except Exception as exc:  # it cannot tell: the next rule decides
            logger.warning("agent {}: {}.reconcile({}) raised {}: {}", agent, tool.name, key,
                           type(exc).__name__, exc)
            continue
        if outcome is None:
            continue
        snapshot.reconciled[call.invocation.id] = (
            outcome if isinstance(outcome, ToolResult)
            else success_result(call.invocation, outcome, tool.max_result_chars or max_chars))


def _settled(outcome: Any) -> Any:
    """An async ``reconcile``'s value (awaited on a loop of its own)."""
    if inspect.isawaitable(outcome):
        async def _await() -> Any:
            return await outcome

        return asyncio.run(_await())
    return outcome

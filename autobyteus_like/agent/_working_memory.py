"""The agent's working set (``memory.advise``): made when the agent has that tool, kept across
its runs, stored with its session and sent to its model by the history processor
``history._hot_paths.working_set_context``.

The session keeps it as one JSON document in its usage record under the run name
``working-set:AGENT`` (``Session.save_usage``): no schema change; written on each change,
read back when the agent starts.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any, Protocol

__all__ = ["WorkingSetOwner", "working_set_of", "working_set_processors", "working_set_record"]

if TYPE_CHECKING:
    from autobyteus_like.agent._config import AgentConfig
    from autobyteus_like.store._session import Session
    from autobyteus_like.tools._registry import ToolRegistry
    from autobyteus_like.tools.builtin._working_set import WorkingSet


class WorkingSetOwner(Protocol):
    """What is read of the agent (``agent.Agent``)."""

    @property
    def name(self) -> str: ...
    @property
    def config(self) -> AgentConfig: ...
    @property
    def tools(self) -> ToolRegistry: ...
    @property
    def session(self) -> Session | None: ...

_KEPT: weakref.WeakKeyDictionary[Any, WorkingSet] = weakref.WeakKeyDictionary()


def working_set_record(agent: str) -> str:
    """The session record that holds ``agent``'s working set."""
    return f"working-set:{agent}"


def working_set_of(agent: WorkingSetOwner) -> WorkingSet | None:
    """The agent's working set, if it has one yet."""
    return _KEPT.get(agent)


def working_set_processors(agent: WorkingSetOwner) -> tuple[list[Any], WorkingSet | None]:
    """The agent's history processors, with the working set's last when it has
    ``memory.advise``; and that working set (made, or restored from the session, once)."""
    processors = list(agent.config.history_processors)
    if "memory.advise" not in agent.tools.names():
        return processors, None
    # loaded only here: the builtin tools stay out of a plain ``import autobyteus_like``
    from autobyteus_like.history._hot_paths import working_set_context
    from autobyteus_like.tools.builtin._working_set import WorkingSet

    working_set = _KEPT.get(agent)
    if working_set is None:
        session, name = agent.session, working_set_record(agent.name)
        working_set = WorkingSet(session.saved_usage(name) if session is not None else None)
        if session is not None:
            working_set.on_change = lambda state: session.save_usage(state, name)
        _KEPT[agent] = working_set
    processors.append(working_set_context(working_set, agent.config.sandbox_for("memory.advise")))
    return processors, working_set

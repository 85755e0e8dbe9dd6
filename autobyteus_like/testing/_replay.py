"""Replay an exported session (``replay_export``): the team of ``team.yaml`` runs offline on
its scripted replies, each tool call answered with its recorded result (``RecordedResults``, a
wrapping hook) unless ``live_tools``, on a session of its own; the outline of that session is
compared with the recorded one, and a difference fails with what changed."""

from __future__ import annotations

import json
import threading
from collections import defaultdict, deque
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from autobyteus_like.errors import ToolFailure
from autobyteus_like.hooks._protocol import AgentHooks
from autobyteus_like.mail._messaging import SEND_MESSAGE_TOOL
from autobyteus_like.store._session import Session
from autobyteus_like.team._config import TeamConfig
from autobyteus_like.team._team import AgentTeam
from autobyteus_like.testing._export import RECORDING, TEAM
from autobyteus_like.testing._outline import compare_outlines, session_outline
from autobyteus_like.testing._requests import compare_requests
from autobyteus_like.testing._simulation import SimulatedTeam
from autobyteus_like.tools import builtin_tools
from autobyteus_like.tools._definition import ToolDefinition
from autobyteus_like.tools._handoff import HANDOFF_PREFIX, handoff_receiver
from autobyteus_like.tools._invocation import ErrorCode, ToolInvocation
from autobyteus_like.tools._middleware import ToolCall
from autobyteus_like.tools._registry import ToolLike, ToolRegistry

__all__ = ["RecordedResults", "replay_export"]

TEAM_TOOLS = frozenset({SEND_MESSAGE_TOOL})
"""Tools the team itself provides: they run in a replay (they carry the mail); so do handoffs
(``transfer_to_*``: the team makes them from ``handoffs:``, and they hand over)."""


class RecordedResults(AgentHooks):
    """Answers each call of a member with the result recorded for the next call of that tool
    (the team's own tools run as they are)."""

    def __init__(self, results: list[dict[str, Any]]) -> None:
        self._lock = threading.Lock()
        self._left: dict[str, deque[dict[str, Any]]] = defaultdict(deque)
        for result in results:
            self._left[result["name"]].append(result)

    def wrap_tool_call(self, call: ToolCall, call_next: Callable[[ToolCall], Any]) -> Any:
        name = call.tool.name
        if name in TEAM_TOOLS or handoff_receiver(call.tool) is not None:
            return call_next(call)
        with self._lock:
            left = self._left.get(name)
            recorded = left.popleft() if left else None
        if recorded is None:
            raise ToolFailure(ErrorCode.TOOL_ERROR,
                              f"the recording holds no result for this call of {name!r}")
        result = recorded["result"] or {}
        if result.get("status") == "success":
            return result.get("content")
        error = result.get("error") or {}
        raise ToolFailure(ErrorCode(error.get("code", ErrorCode.TOOL_ERROR.value)),
                          str(error.get("message", "failed")),
                          suggestion=error.get("suggestion"),
                          recoverable=bool(error.get("recoverable", True)))


def replay_export(folder: str | Path, workdir: str | Path, *, check_requests: bool = False,
                  live_tools: bool = False, tools: Iterable[ToolLike] | None = None,
                  timeout: float = 60) -> None:
    """Replay the test exported in ``folder`` (its session kept in ``workdir``); an
    ``AssertionError`` naming every difference from the recording when there is one.
    ``live_tools``: the tools run (the builtin ones of the recorded names, and ``tools``,
    your own) instead of answering with their recorded results."""
    folder = Path(folder)
    recording = json.loads((folder / RECORDING).read_text())
    registry = _tools(recording, live_tools, ToolRegistry.of(list(tools or ())))
    config = TeamConfig.from_yaml(folder / TEAM, tools=registry)
    if not live_tools:
        config = config.model_copy(update={"members": [
            member.model_copy(update={"hooks": (*member.hooks, RecordedResults(
                recording["results"].get(member.name, [])))})
            for member in config.members]})
    expected = recording["outline"]
    session = Session("replay", Path(workdir) / "replay.sessions.db")
    errors = []
    try:
        team = AgentTeam(config, tools=registry, session=session)
        with SimulatedTeam(team, {}, _decisions(expected)) as simulated:
            for message in expected["user_messages"]:
                transcript = simulated.run(message, timeout=timeout)
                if transcript.error:
                    errors.append(transcript.error)
        actual = session_outline(session.store, "replay")
        problems = compare_outlines(expected, actual)
        if check_requests:
            problems += compare_requests(recording["requests"], {
                member: session.store.recordings.requests("replay", member)
                for member in recording["requests"]})
    finally:
        session.close()
    if problems:
        said = "".join(f"\n  (the replay's run ended with: {error})" for error in errors)
        raise AssertionError(
            f"the replay of session {recording['session']!r} differs from its recording:\n- "
            + "\n- ".join(problems) + said)


def _tools(recording: dict[str, Any], live: bool, own: ToolRegistry) -> ToolRegistry:
    """The recorded tools: stand-ins answered by their recorded results, or with
    ``live`` one's ``own`` tools and the builtin ones of those names (stand-ins for the
    others)."""
    builtin = builtin_tools() if live else None
    registry = ToolRegistry()
    seen: set[str] = set()
    for tools in recording["tools"].values():
        for name, data in tools.items():
            if name in seen or name in TEAM_TOOLS or name.startswith(HANDOFF_PREFIX):
                continue
            seen.add(name)
            if live and name in own:
                registry.add(own.get(name))
                continue
            if builtin is not None and name in builtin:
                registry.add(builtin.get(name))
                continue
            registry.add(ToolDefinition(
                name=name, description=data["description"], arguments_model=None,
                function=_no_body(name), input_schema=data["schema"],
                requires_approval=bool(data.get("requires_approval")),
                masked_arguments=tuple(data.get("masked_arguments", ()))))
    return registry


def _no_body(name: str) -> Callable[..., Any]:
    def body(arguments: dict[str, Any]) -> Any:
        raise ToolFailure(ErrorCode.TOOL_ERROR,
                          f"{name!r} is a stand-in from a recording: its result is recorded")

    return body


def _decisions(outline: dict[str, Any]) -> Callable[[str, ToolInvocation], bool | str]:
    """The decisions a person took, in order per member and tool."""
    left: dict[tuple[str, str], deque[str]] = defaultdict(deque)
    for member, data in outline["members"].items():
        for call in data["calls"]:
            if call.get("decision") and call["decision"] != "waiting":
                left[(member, call["name"])].append(call["decision"])
    lock = threading.Lock()

    def decide(member: str, call: ToolInvocation) -> bool | str:
        with lock:
            queue = left.get((member, call.name))
            decision = queue.popleft() if queue else None
        if decision is None:
            return "no decision was recorded for this call"
        if decision == "approved":
            return True
        return decision.split(": ", 1)[1] if ": " in decision else decision  # its reason

    return decide

"""Run a whole team offline on scripted responses and get a Transcript back."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

from autobyteus_like.errors import AutobyteusLikeError, UnknownApprovalError
from autobyteus_like.llm._scripted import ScriptedLLM, ScriptedResponse
from autobyteus_like.mail._events import TeamQuiescent
from autobyteus_like.team._config import TeamConfig
from autobyteus_like.team._team import AgentTeam
from autobyteus_like.testing._approvals import Approvals, Recorder
from autobyteus_like.testing._transcript import Transcript
from autobyteus_like.tools._registry import ToolLike, ToolRegistry

__all__ = ["SimulatedTeam", "scripted_team"]


class SimulatedTeam:
    """A team whose members answer from scripts. ``with`` starts and stops it; ``run`` returns
    a Transcript of everything that happened until the team was quiet. ``approvals`` decides
    the calls that wait for approval (``testing.Approvals``)."""

    def __init__(self, team: AgentTeam, llms: dict[str, ScriptedLLM],
                 approvals: Approvals = None) -> None:
        self.team = team
        self.llms = llms
        self.approvals = approvals

    def __enter__(self) -> SimulatedTeam:
        self.team.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.team.stop()

    def run(self, message: str, timeout: float = 30) -> Transcript:
        """Send ``message`` to the coordinator and record the run until the team is quiet.

        One rule for every way a run fails (the coordinator's turn failed, a script ran out,
        a usage limit ended the run, a call waits for a decision nobody gives, the team
        stopped or was still busy at ``timeout``): it is recorded in ``Transcript.error``,
        never raised here, and the answer is ``""``. Failed turns of other members are in
        ``Transcript.failed_turns()``. ``assert_ok()`` and ``assert_all_consumed()`` fail the
        test on any of them."""
        team = self.team
        recorder = Recorder(self.approvals, self._decide)
        answer: Any = ""
        try:
            events = team.events()
            team.send(message)
        except AutobyteusLikeError as exc:
            return Transcript([], dict(self.llms), "", f"{type(exc).__name__}: {exc}")
        ended = recorder.record(events, lambda event: isinstance(event, TeamQuiescent),
                                timeout, f"team {team.name!r}")
        error = recorder.error
        if ended is not None:
            try:
                answer = team.last_answer(timeout=5)
            except AutobyteusLikeError as exc:
                error = f"{type(exc).__name__}: {exc}"
        return Transcript(recorder.events, dict(self.llms), answer, error)

    def _decide(self, agent: str, call_id: str, approved: bool, reason: str) -> None:
        with contextlib.suppress(UnknownApprovalError):  # its turn ended meanwhile
            if approved:
                self.team.approve(agent, call_id)
            else:
                self.team.deny(agent, call_id, reason)


def scripted_team(
    config: TeamConfig | str | Path,
    scripts: Mapping[str, Sequence[ScriptedResponse]] | None = None,
    *,
    tools: ToolRegistry | Iterable[ToolLike] | None = None,
    chunk_size: int | tuple[int, int] | None = None,
    approvals: Approvals = None,
) -> SimulatedTeam:
    """A team from a config (object or YAML path) whose members answer from ``scripts``
    (member name -> responses). Members without a script keep the LLM their config gives,
    which must then be scripted too. ``approvals``: ``"approve"``, ``"deny"``, or a function
    of (member, call) returning True, False or a denial's reason; None leaves waiting calls
    undecided (the run then ends with ``Transcript.error`` naming them)."""
    tools = ToolRegistry.of(tools)
    if not isinstance(config, TeamConfig):
        config = TeamConfig.from_yaml(config, tools=tools)
    scripts = dict(scripts or {})
    unknown = sorted(set(scripts) - {member.name for member in config.members})
    if unknown:
        raise ValueError(f"scripts for unknown members: {', '.join(unknown)}")
    members = []
    llms: dict[str, ScriptedLLM] = {}
    for member in config.members:
        llm = member.llm
        if member.name in scripts:
            llm = ScriptedLLM(scripts[member.name], provider=llm.provider, chunk_size=chunk_size)
        if not isinstance(llm, ScriptedLLM):
            raise ValueError(f"member {member.name!r} has no script and a real LLM")
        llms[member.name] = llm
        members.append(member.model_copy(update={"llm": llm}))
    team = AgentTeam(config.model_copy(update={"members": members}), tools=tools)
    return SimulatedTeam(team, llms, approvals)

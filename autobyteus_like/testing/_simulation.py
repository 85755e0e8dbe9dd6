"""Run a whole team offline on scripted responses and get a Transcript back."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from types import TracebackType

from autobyteus_like.agent._subscription import EventSubscription
from autobyteus_like.errors import AutobyteusLikeError
from autobyteus_like.events import AgentEvent
from autobyteus_like.llm._scripted import ScriptedLLM, ScriptedResponse
from autobyteus_like.mail._events import TeamQuiescent
from autobyteus_like.team._config import TeamConfig
from autobyteus_like.team._team import AgentTeam
from autobyteus_like.testing._transcript import Transcript
from autobyteus_like.tools._registry import ToolLike, ToolRegistry

__all__ = ["SimulatedTeam", "scripted_team"]


class SimulatedTeam:
    """A team whose members answer from scripts. ``with`` starts and stops it; ``run`` returns
    a Transcript of everything that happened until the team was quiet."""

    def __init__(self, team: AgentTeam, llms: dict[str, ScriptedLLM]) -> None:
        self.team = team
        self.llms = llms

    def __enter__(self) -> SimulatedTeam:
        self.team.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.team.stop()

    def run(self, message: str, timeout: float = 30) -> Transcript:
        """Send ``message`` to the coordinator and record the run until the team is quiet.

        One rule for every way a run fails (the coordinator's turn failed, a script ran out,
        a usage limit ended the run, the team stopped or was still busy at ``timeout``): it is
        recorded in ``Transcript.error``, never raised here, and the answer is ``""``. Failed
        turns of other members are in ``Transcript.failed_turns()``. ``assert_ok()`` and
        ``assert_all_consumed()`` fail the test on any of them."""
        events = self.team.events()
        answer, error = "", None
        try:
            answer = self.team.run(message, timeout=timeout)
        except (AutobyteusLikeError, TimeoutError) as exc:
            error = f"{type(exc).__name__}: {exc}"
        return Transcript(_until_quiet(events, timeout), dict(self.llms), answer, error)


def _until_quiet(events: EventSubscription, timeout: float) -> list[AgentEvent]:
    recorded: list[AgentEvent] = []
    try:
        while (event := events.get(timeout=timeout)) is not None:
            recorded.append(event)
            if isinstance(event, TeamQuiescent):
                break
    finally:
        events.close()
    return recorded


def scripted_team(
    config: TeamConfig | str | Path,
    scripts: Mapping[str, Sequence[ScriptedResponse]] | None = None,
    *,
    tools: ToolRegistry | Iterable[ToolLike] | None = None,
    chunk_size: int | tuple[int, int] | None = None,
) -> SimulatedTeam:
    """A team from a config (object or YAML path) whose members answer from ``scripts``
    (member name -> responses). Members without a script keep the LLM their config gives,
    which must then be scripted too."""
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
    return SimulatedTeam(team, llms)

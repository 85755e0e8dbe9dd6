"""One agent tested offline, without a team: its config's LLM replaced by a script or a
function (pydantic-ai's ``agent.override(model=TestModel())``), its approvals decided by a
policy, and each run recorded in a Transcript."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Sequence
from types import TracebackType
from typing import Any

from autobyteus_like.agent._agent import Agent
from autobyteus_like.agent._config import AgentConfig
from autobyteus_like.errors import AutobyteusLikeError, UnknownApprovalError
from autobyteus_like.events import AgentEvent, TurnCompleted
from autobyteus_like.formats import format_for_provider
from autobyteus_like.llm._scripted import ScriptedLLM, ScriptedResponse
from autobyteus_like.testing._approvals import Approvals, Recorder
from autobyteus_like.testing._transcript import Transcript
from autobyteus_like.tools._registry import ToolLike, ToolRegistry

__all__ = ["SimulatedAgent", "scripted_agent"]


class SimulatedAgent:
    """An agent whose LLM answers from a script. ``with`` starts and stops it; ``run`` returns
    a Transcript of the turn (``answer`` typed as ``Agent.run`` returns it)."""

    def __init__(self, agent: Agent, llm: ScriptedLLM, approvals: Approvals = None) -> None:
        self.agent = agent
        self.llm = llm
        self.approvals = approvals

    def __enter__(self) -> SimulatedAgent:
        self.agent.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.agent.stop()

    def run(self, message: str, timeout: float = 30) -> Transcript:
        """Send ``message`` and record its turn. As for a team, a failed turn, a script that
        ran out, a call that waits for a decision nobody gives and the timeout are recorded
        in ``Transcript.error``, never raised."""
        agent = self.agent
        recorder = Recorder(self.approvals, self._decide)
        llms = {agent.name: self.llm}
        try:
            events = agent.events()
            reply = agent.deliver(message)
        except AutobyteusLikeError as exc:
            return Transcript([], llms, "", f"{type(exc).__name__}: {exc}")
        ended = recorder.record(events, _turn_end, timeout, f"agent {agent.name!r}")
        answer: Any = ""
        error = recorder.error
        if ended is not None:
            try:
                answer = agent.answer(reply.result(timeout=5))
            except AutobyteusLikeError as exc:
                error = f"{type(exc).__name__}: {exc}"
        return Transcript(recorder.events, llms, answer, error)

    def _decide(self, agent: str, call_id: str, approved: bool, reason: str) -> None:
        with contextlib.suppress(UnknownApprovalError):  # its turn ended meanwhile
            if approved:
                self.agent.approve(call_id)
            else:
                self.agent.deny(call_id, reason)


def _turn_end(event: AgentEvent) -> bool:
    return isinstance(event, TurnCompleted)


def scripted_agent(
    config: AgentConfig,
    script: Sequence[ScriptedResponse] | ScriptedLLM,
    *,
    tools: ToolRegistry | Iterable[ToolLike] | None = None,
    chunk_size: int | tuple[int, int] | None = None,
    approvals: Approvals = None,
) -> SimulatedAgent:
    """The agent ``config`` describes, its LLM (a real provider's too) replaced by ``script``:
    responses for a ``ScriptedLLM``, or an LLM of one's own (a ``FunctionLLM`` answering every
    request with a function); the agent keeps the tool format its configured model gets (for
    a member that would adapt, ``auto``, its provider's text format: a script is text).
    ``approvals`` as for ``scripted_team``."""
    llm = script if isinstance(script, ScriptedLLM) else ScriptedLLM(script,
                                                                     chunk_size=chunk_size)
    # the format the configured model would get, whoever answers now; a member that would
    # adapt (``auto``) gets its provider's text format, since a script's replies are text
    spoken = (format_for_provider(config.llm.provider, config.use_xml_tool_format).value
              if config.adapts_format() else config.resolved_format())
    config = config.model_copy(update={"llm": llm, "tool_format": spoken})
    agent = Agent(config, tools=ToolRegistry.of(tools))
    return SimulatedAgent(agent, llm, approvals)

"""One run of one task in one format: a fresh agent on a fresh LLM, the task's message, and
what happened, read from the agent's events: each call (parsed, unreadable, its result), the
answer, the tokens and the time. A failure of the server (an LLM request that failed) is an
outcome of its own, never the model's."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from autobyteus_like.agent import Agent, AgentConfig
from autobyteus_like.errors import AgentTurnError
from autobyteus_like.evals._suite import EvalSuite, EvalTask, matches
from autobyteus_like.events import (
    AgentEvent,
    LLMRequestFailed,
    LLMResponseCompleted,
    ToolCallParsed,
    ToolCallParseFailed,
    ToolResultReceived,
)
from autobyteus_like.formats import NATIVE
from autobyteus_like.history._tokens import estimate_tokens
from autobyteus_like.llm._base import LLM
from autobyteus_like.tools._invocation import ErrorCode

__all__ = ["LiveAgents", "RunOutcome", "run_task"]

_MALFORMED = frozenset({ErrorCode.PARSE_ERROR, ErrorCode.UNKNOWN_TOOL})
_INVALID = frozenset({ErrorCode.INVALID_ARGS})


@dataclass
class RunOutcome:
    """What one run of one task in one format came to."""

    format: str
    task: str
    repeat: int
    success: bool = False
    server_error: str | None = None
    """The server failed (the run counts for neither success nor failure)."""
    error: str | None = None
    """The turn failed for another reason (too many iterations, a timeout)."""
    missed: int = 0
    extra: int = 0
    malformed: int = 0
    invalid_args: int = 0
    failed_calls: int = 0
    prose_only: bool = False
    """Calls were expected and the model answered in prose without any."""
    answer_ok: bool = True
    manifest_tokens: int = 0
    input_tokens: int | None = None
    reply_tokens: int | None = None
    latency_s: float = 0.0
    answer: str = ""
    calls: list[dict[str, Any]] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return asdict(self)


class LiveAgents:
    """The agents running now, so that an interrupt stops them all at once."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._agents: set[Agent] = set()
        self.stopping = threading.Event()

    def add(self, agent: Agent) -> bool:
        with self._lock:
            if self.stopping.is_set():
                return False
            self._agents.add(agent)
            return True

    def discard(self, agent: Agent) -> None:
        with self._lock:
            self._agents.discard(agent)

    def stop_all(self) -> None:
        with self._lock:
            self.stopping.set()
            agents = list(self._agents)
        for agent in agents:
            agent.stop()


def manifest_tokens(agent: Agent, tool_format: str) -> int:
    """The tokens that teach the tools: the system prompt (with the manifest, in a text
    format), plus the tools' schemas as a native request declares them."""
    prompt = estimate_tokens(agent.system_prompt)
    if tool_format != NATIVE:
        return prompt
    schemas = [{"name": tool.name, "description": tool.description,
                "parameters": tool.shared_inline_schema} for tool in agent.tools]
    return prompt + estimate_tokens(json.dumps(schemas))


def run_task(llm: LLM, suite: EvalSuite, tools: Sequence[Any], task: EvalTask,
             tool_format: str, repeat: int, *, timeout_s: float, live: LiveAgents,
             max_iterations: int = 6, manifest: str = "full") -> RunOutcome | None:
    """Run ``task`` once in ``tool_format``; None when stopped before it began."""
    outcome = RunOutcome(tool_format, task.id, repeat)
    agent = Agent(AgentConfig(name="eval", llm=llm, tools=list(tools),
                              tool_format=tool_format, system_prompt=suite.system_prompt,
                              max_iterations=max_iterations, tool_timeout_s=30,
                              manifest="compact" if manifest == "compact" else "full"))
    outcome.manifest_tokens = manifest_tokens(agent, tool_format)
    if not live.add(agent):
        return None
    seen: list[AgentEvent] = []
    try:
        with agent:
            events = agent.events()
            started = time.perf_counter()
            try:
                outcome.answer = str(agent.run(task.prompt, timeout=timeout_s))
            except AgentTurnError as exc:
                outcome.error = str(exc)
            except TimeoutError as exc:
                outcome.error = str(exc)
            outcome.latency_s = time.perf_counter() - started
            agent.stop()
            seen = list(iter(lambda: events.get(timeout=5), None))
    finally:
        live.discard(agent)
    if live.stopping.is_set() and outcome.error is not None:
        return None  # cut by the interrupt: not a result
    _score(outcome, task, seen)
    return outcome


def _score(outcome: RunOutcome, task: EvalTask, seen: Sequence[AgentEvent]) -> None:
    failures = [e for e in seen if isinstance(e, LLMRequestFailed)]
    if failures and outcome.error is not None:
        outcome.server_error = failures[-1].error
        return
    calls: dict[str, dict[str, Any]] = {}
    malformed: set[str] = set()  # a call that could not be read also gets a PARSE_ERROR result
    for event in seen:
        if isinstance(event, ToolCallParsed):
            call = event.invocation
            calls[call.id] = {"tool": call.name, "arguments": dict(call.arguments),
                              "status": "pending"}
        elif isinstance(event, ToolCallParseFailed):
            malformed.add(event.invocation_id)
        elif isinstance(event, ToolResultReceived):
            result = event.result
            entry = calls.setdefault(result.invocation_id, {
                "tool": result.tool_name, "arguments": {}, "status": "pending"})
            entry["status"] = result.status
            code = result.error.code if result.error is not None else None
            if code in _MALFORMED:
                malformed.add(result.invocation_id)
            elif code in _INVALID:
                outcome.invalid_args += 1
            if result.status == "failure":
                outcome.failed_calls += 1
        elif isinstance(event, LLMResponseCompleted):
            if event.input_tokens is not None:
                outcome.input_tokens = (outcome.input_tokens or 0) + event.input_tokens
            if event.output_tokens is not None:
                outcome.reply_tokens = (outcome.reply_tokens or 0) + event.output_tokens
    outcome.malformed = len(malformed)
    outcome.calls = list(calls.values())
    done = [c for c in outcome.calls if c["status"] == "success"]
    unmatched = list(done)
    for expected in task.calls:
        fit = next((c for c in unmatched if expected.fits(c["tool"], c["arguments"])), None)
        if fit is None:
            outcome.missed += 1
        else:
            unmatched.remove(fit)
    outcome.extra = 0 if task.extra_ok else len(unmatched)
    outcome.prose_only = bool(task.calls) and not outcome.calls and outcome.malformed == 0
    outcome.answer_ok = task.answer is None or (
        outcome.error is None and matches(task.answer, outcome.answer))
    failed_ok = task.failures_ok or outcome.failed_calls == 0
    outcome.success = (outcome.error is None and outcome.missed == 0 and outcome.extra == 0
                       and outcome.answer_ok and failed_ok)


LLMFactory = Callable[[str, EvalTask], LLM]
"""Makes a fresh LLM for one run: given the format and the task."""

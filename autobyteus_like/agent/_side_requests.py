"""Side requests: a model asked aside from the agent's conversation, by a tool
(``memory.summarize``) or an MCP server's sampling request during one of the agent's calls
(``mcp/_sampling.py``), counted like the agent's own requests.

Each request is one round trip: the agent's hooks ``claim`` it first (``"llm_calls"``: the
usage meter counts it, or a limit refuses it and it is never sent), then it streams on the
caller's thread (a tool's worker, never the agent's own), then the hooks hear its usage
(``response_received``, under a negative request number no turn uses) and their ``verdict``
(a token or cost limit crossed). The hooks run on the agent's actor thread, as everywhere:
the caller hands them over as an ``OnActor`` message and waits for the answer. Nothing of
the request enters the conversation or the session's history.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pykka

from autobyteus_like.errors import LLMError, ToolFailure
from autobyteus_like.events import LLMResponseCompleted
from autobyteus_like.llm._base import LLM
from autobyteus_like.llm._cancellation import Cancellation
from autobyteus_like.llm._messages import LLMRequest, Message
from autobyteus_like.tools._context import CancelFlag
from autobyteus_like.tools._invocation import ErrorCode

if TYPE_CHECKING:
    from autobyteus_like.errors import UsageLimitExceededError
    from autobyteus_like.hooks import AgentHooks
    from autobyteus_like.hooks._protocol import TurnView

OnActorRun = Callable[["AgentHooks", "TurnView | None"], Any]
"""Run on the actor's thread with its hooks and its turn in progress (None between turns)."""

__all__ = ["DEFAULT_CONTEXT_TOKENS", "OnActor", "SideRequests", "raw_llm"]

DEFAULT_CONTEXT_TOKENS = 8192
"""What a request may hold when the model does not say (``context_tokens`` on the LLM)."""
_ACTOR_WAIT_S = 10.0
"""How long a caller waits for the actor to run the hooks (it is busy with one event at a
time, each short); past it, or once the agent stops, the request fails."""
_POLL_S = 0.1


@dataclass(frozen=True)
class OnActor:
    """A function the agent's actor runs on its own thread with its hooks and its turn in
    progress (``ask``)."""

    run: OnActorRun


def raw_llm(llm: LLM) -> LLM:
    """The provider's model under the agent's wrappers (history shaping, manifest teaching,
    format rules: each an LLM holding the one it wraps as ``inner``): a side request is its
    own conversation."""
    while isinstance(inner := getattr(llm, "inner", None), LLM):
        llm = inner
    return llm


def _claim(hooks: AgentHooks, turn: TurnView | None) -> UsageLimitExceededError | str | None:
    if turn is None:
        return "the agent has no turn in progress"
    return hooks.claim(turn, "llm_calls")


def _record(response: LLMResponseCompleted) -> OnActorRun:
    def record(hooks: AgentHooks, turn: TurnView | None) -> UsageLimitExceededError | None:
        if turn is not None:
            hooks.response_received(turn, response)
        return hooks.verdict()

    return record


class SideRequests:
    """One agent's side requests (the ``SideLLM`` a tool finds in its ``ToolContext``)."""

    def __init__(self, agent: str, llm: LLM, actor: pykka.ActorRef[Any],
                 stopping: Cancellation | None = None) -> None:
        self._agent = agent
        self._llm = llm
        self._actor = actor
        self._stopping = stopping
        """Set when the agent stops its work: cuts a side request's stream at once."""
        self._numbers = itertools.count(-1, -1)
        self._lock = threading.Lock()

    @property
    def context_tokens(self) -> int:
        size = getattr(raw_llm(self._llm), "context_tokens", None)
        return size if isinstance(size, int) and size > 0 else DEFAULT_CONTEXT_TOKENS

    def _on_actor(self, run: OnActorRun, cancel: CancelFlag | None) -> Any:
        try:
            future = self._actor.ask(OnActor(run), block=False)
        except pykka.ActorDeadError:
            raise ToolFailure(ErrorCode.NOT_AVAILABLE,
                              f"agent {self._agent!r} has stopped") from None
        deadline = time.monotonic() + _ACTOR_WAIT_S
        while True:
            try:
                return future.get(timeout=_POLL_S)
            except FutureTimeout:
                if (cancel is not None and cancel.is_set()) or time.monotonic() > deadline:
                    raise ToolFailure(ErrorCode.TIMEOUT, f"agent {self._agent!r} did not "
                                      "take the side request (stopping or busy)") from None
            except pykka.ActorDeadError:
                raise ToolFailure(ErrorCode.NOT_AVAILABLE,
                                  f"agent {self._agent!r} has stopped") from None

    def ask(self, instructions: str, text: str, *, llm: Any = None,
            cancel: CancelFlag | None = None, messages: Sequence[Message] | None = None
            ) -> str:
        """The answer of the agent's model (or ``llm``) to ``text`` (or the conversation
        ``messages``) under ``instructions``; a ``ToolFailure`` (LIMIT, TIMEOUT,
        NOT_AVAILABLE, TOOL_ERROR) when it cannot be had."""
        model = raw_llm(llm if isinstance(llm, LLM) else self._llm)
        refused = self._on_actor(_claim, cancel)
        if refused is not None:
            raise ToolFailure(ErrorCode.LIMIT, str(refused), recoverable=False)
        with self._lock:
            number = next(self._numbers)
        stop = Cancellation()  # the agent stopping cuts the stream, even a blocked read
        unlink = self._stopping.on_cancel(stop.set) if self._stopping is not None else None
        parts: list[str] = []
        usage = None
        finish: str | None = None
        request = LLMRequest(instructions, tuple(messages) if messages else
                             (Message("user", text),))
        try:
            for chunk in model.stream(request, stop):
                parts.append(chunk.text)
                usage = chunk.usage or usage
                finish = chunk.finish_reason or finish
                if cancel is not None and cancel.is_set():
                    stop.set()
        except LLMError as exc:
            raise ToolFailure(ErrorCode.TOOL_ERROR,
                              f"the model's side request failed: {exc}") from None
        finally:
            if unlink is not None:
                unlink()
            response = LLMResponseCompleted(
                agent=self._agent, request_no=number,
                input_tokens=usage.input_tokens if usage else None,
                output_tokens=usage.output_tokens if usage else None,
                reasoning_tokens=usage.reasoning_tokens if usage else None,
                cached_input_tokens=usage.cached_input_tokens if usage else None,
                finish_reason=finish)
            crossed = self._on_actor(_record(response), None)
        if stop.is_set():
            raise ToolFailure(ErrorCode.TIMEOUT, "the side request was cancelled")
        if crossed is not None:
            raise ToolFailure(ErrorCode.LIMIT, str(crossed), recoverable=False)
        answer = "".join(parts).strip()
        if not answer:
            raise ToolFailure(ErrorCode.TOOL_ERROR, "the model answered the side request with "
                              "nothing" + (f" (finish reason {finish})" if finish else ""))
        return answer

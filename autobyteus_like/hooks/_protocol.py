"""AgentHooks: the points of a turn that something outside the turn machine may watch, wrap
or decide.

Modelled on pydantic-ai's capabilities and the OpenAI Agents SDK's lifecycle hooks: a base
class whose methods do nothing, so an implementation overrides only what it needs, and the turn
machine calls every point without asking whether anyone listens. There are three kinds of
point:

- **Watch** (``message_received`` ... ``close``): told that a step happens; returns nothing.
  Called on the agent's actor thread, before anything that depends on it happens (a tool never
  starts before ``call_running`` returned; the LLM is never sent a result before
  ``call_finished`` returned), and before the event that announces it is published.
- **Wrap** (``wrap_model_request``, ``wrap_tool_call``): around the model request and the tool
  call themselves, ``call_next`` style: the hook gets the request or call and a ``call_next``
  it may call (once, several times, with a changed request or call), whose outcome it may
  replace, or not call at all. The first hook given is the outermost. A model request is
  wrapped on the agent's LLM worker, a tool call on the thread that runs it (an async tool's
  body still runs on its loop): never on the actor's thread, and on several threads at once
  when calls run in parallel. Only hooks that override a wrap point are in its chain; without
  one the request or call runs as it would anyway.
- **Admit** (``admit_early``, ``claim`` with its ``release``, ``verdict``): a decision, asked
  on the actor thread. ``claim`` admits one LLM request or tool call about to be made (a meter
  counts it there, under its budget's lock); when an admitted request or call is then not made
  (a later hook or a verdict refuses it, the run ends or the agent stops first) every hook that
  admitted it is told through ``release``, so a count holds only what was made.

An exception from a hook fails the turn at once (a session store that cannot be written must
not let the turn go on unrecorded): the hooks after it in the composite are not called for that
point, and the turn's error names the hook and the point (``MyHooks.call_running raised ...``).
A wrapping hook that raises is named the same way in what the turn gets: the failed model
request, or the tool call's result. Where nothing is left to fail (``run_started``,
``turn_ended``, ``run_ended``, ``conversation_reset``, ``close``, ``release``) the failure is
reported and the agent goes on. A hook runs on the actor's thread (save the wrap points), so
a slow one holds the agent up; it may ``send`` to its own agent or ``stop`` it (the stop
happens after the current step), but a call that waits for the agent (``run``, ``approve``,
``history``) raises ``OwnThreadError`` there. The hooks are fixed when the config is made
(``AgentConfig.hooks`` is a tuple).
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol

if TYPE_CHECKING:
    from autobyteus_like.errors import UsageLimitExceededError
    from autobyteus_like.events import (
        ConversationReset,
        LLMRequestFailed,
        LLMResponseCompleted,
        UserMessageReceived,
    )
    from autobyteus_like.llm._messages import LLMChunk, LLMRequest, Message
    from autobyteus_like.parsers._parse_events import ParseErrorInfo
    from autobyteus_like.tools._definition import ToolDefinition
    from autobyteus_like.tools._invocation import ToolInvocation, ToolResult
    from autobyteus_like.tools._middleware import ToolCall

__all__ = ["AgentHooks", "CallKind", "CallView", "LLMCall", "TurnView", "overrides"]

CallKind = Literal["llm_calls", "tool_calls"]
"""What ``AgentHooks.claim`` asks for: one LLM request, or one tool call."""


class CallView(Protocol):
    """One call of a response, as hooks see it (the turn machine's ``Slot``)."""

    @property
    def invocation(self) -> ToolInvocation: ...
    @property
    def position(self) -> int: ...
    @property
    def tool(self) -> ToolDefinition | None: ...
    @property
    def result(self) -> ToolResult | None: ...
    @property
    def awaiting_approval(self) -> bool: ...


class TurnView(Protocol):
    """The turn in progress, as hooks see it (the turn machine's ``TurnState``)."""

    @property
    def turn_id(self) -> int: ...
    @property
    def request_no(self) -> int: ...
    @property
    def iterations(self) -> int: ...
    @property
    def mail_id(self) -> str | None: ...
    @property
    def response_done(self) -> bool: ...
    @property
    def failed(self) -> Mapping[str, ToolResult]: ...
    def calls(self) -> Iterable[CallView]: ...


@dataclass(frozen=True, slots=True)
class LLMCall:
    """One LLM request as a wrapping hook sees it. ``replace`` gives a changed copy to pass on
    (``call.replace(request=...)``)."""

    agent: str
    turn_id: int
    request_no: int
    request: LLMRequest

    def replace(self, **changes: Any) -> LLMCall:
        """A copy with some fields changed."""
        return dataclasses.replace(self, **changes)


class AgentHooks:
    """Every point of an agent's turns; each does nothing here (a wrap point calls
    ``call_next`` as it is, an admit point lets everything go)."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if vars(cls).get("needs_whole_response") and "admit_early" not in vars(cls):
            warnings.warn(f"{cls.__name__}.needs_whole_response is deprecated: override "
                          "admit_early (return turn.response_done) instead",
                          DeprecationWarning, stacklevel=2)
            cls.admit_early = _whole_response  # type: ignore[method-assign]

    # -- the run -------------------------------------------------------------------------------

    def run_started(self, end_run: Callable[[UsageLimitExceededError], None]) -> None:
        """The agent's run begins (its actor is being built, on the thread starting it).
        ``end_run`` ends the run from any thread: a limit kept elsewhere (a team's, crossed by
        a teammate) calls it; the turn machine then ends the run on its own thread. A hook
        that raises here is reported and the agent goes on."""

    # -- messages ------------------------------------------------------------------------------

    def message_received(self, message: UserMessageReceived) -> None:
        """A message arrived (it starts a turn now, or waits for the current one)."""

    def reset_received(self, reset: ConversationReset, waits: bool) -> None:
        """A conversation reset arrived; ``waits``: it is applied when the turn ends."""

    def conversation_reset(self, reset: ConversationReset) -> None:
        """The history starts over (between turns)."""

    # -- the turn and its LLM round trips -----------------------------------------------------

    def turn_started(self, turn: TurnView, messages: Sequence[Message]) -> None:
        """A turn began; its user message is the last of ``messages``."""

    def request_sent(self, turn: TurnView, messages: Sequence[Message]) -> None:
        """An LLM request carrying ``messages`` is about to go out (``verdict`` may stop it)."""

    def response_received(self, turn: TurnView, response: LLMResponseCompleted) -> None:
        """The response's end arrived, with its usage (before it is handled)."""

    def response_completed(self, turn: TurnView, messages: Sequence[Message]) -> None:
        """The response is whole: its assistant message (last of ``messages``) and every
        call of it (``turn.calls()``), before any of them is asked about or started."""

    def request_failed(self, turn: TurnView, failure: LLMRequestFailed) -> None:
        """The LLM request failed (the turn ends with it)."""

    # -- calls ---------------------------------------------------------------------------------

    def call_parsed(self, turn: TurnView, call: CallView) -> None:
        """The LLM made a call (arguments not yet checked)."""

    def call_unreadable(self, turn: TurnView, error: ParseErrorInfo, invocation_id: str
                        ) -> None:
        """A call could not be read (its PARSE_ERROR result follows)."""

    def call_pending(self, turn: TurnView, call: CallView) -> None:
        """A call is about to be checked and, if allowed, run (``verdict`` may stop it)."""

    def call_waiting(self, turn: TurnView, call: CallView) -> None:
        """The call waits for a person."""

    def call_approved(self, turn: TurnView, call: CallView) -> None:
        """A person allowed the call."""

    def call_running(self, turn: TurnView, call: CallView) -> None:
        """The call is about to start."""

    def call_finished(self, turn: TurnView, call: CallView) -> None:
        """The call has its result (``call.result``), before the LLM can be sent it."""

    # -- the end -------------------------------------------------------------------------------

    def turn_ended(self, turn: TurnView, messages: Sequence[Message], answer: str,
                   error: str | None) -> None:
        """The turn is over (``error`` None: it answered), once per turn, whether it
        answered, failed or a limit ended it. A stop is not a turn's end: the turn stays
        unfinished (a session resumes it) and ``close`` follows."""

    def run_ended(self, error: UsageLimitExceededError) -> None:
        """A limit ended the run (the turn in progress ends next)."""

    # -- wrap: around the request and the call themselves --------------------------------------

    def wrap_model_request(self, call: LLMCall,
                           call_next: Callable[[LLMCall], Iterable[LLMChunk]]
                           ) -> Iterable[LLMChunk]:
        """Around one LLM request, on the agent's LLM worker: return the response's chunks,
        usually ``call_next(call)``'s (``call.replace(request=...)`` changes what is sent;
        chunks of one's own replace the response; chunks already yielded are not taken
        back, so retry only before the first). Runs after ``claim``/``request_sent``."""
        return call_next(call)

    def wrap_tool_call(self, call: ToolCall, call_next: Callable[[ToolCall], Any]) -> Any:
        """Around one tool call, on the thread that runs it: return the tool's value, usually
        ``call_next(call)``'s (``call.replace(arguments=...)`` changes them; another value, or
        a ``ToolFailure`` raised, replaces the outcome). Runs after ``call_running``, inside
        the call's timeout; for an async tool, on a tool thread while its body runs on its
        loop. A call admitted by ``claim`` counts as made once its wrapping begins."""
        return call_next(call)

    # -- admit: decisions ----------------------------------------------------------------------

    def admit_early(self, turn: TurnView, call: CallView) -> bool:
        """May ``call`` be checked (and, if allowed, started) now, while the LLM still writes
        the rest of its response? False holds it until the response is complete and
        ``response_completed`` returned (the session writer stores a response and all its
        calls before any is checked). Asked as each call is parsed."""
        return True

    def claim(self, turn: TurnView, kind: CallKind) -> UsageLimitExceededError | None:
        """Admit one more LLM request (``"llm_calls"``) or tool call (``"tool_calls"``) about
        to be made, right now: None lets it go (a meter counts it here, under its budget's
        lock, so usage holds what happened), an error refuses it (it is never made). A tool
        call is claimed after it was checked and allowed, just before its body starts; a
        refused call gets a LIMIT result. Asked before ``request_sent`` and ``call_running``;
        when a later hook refuses it, ``release`` follows."""
        return None

    def release(self, turn: TurnView, kind: CallKind) -> None:
        """A request or call this hook admitted (``claim`` returned None) is not made after
        all: a later hook refused it, a hook failed before it went, a verdict ended the run,
        or the run ended or the agent stopped before its thread took it. Give its count back."""

    def verdict(self) -> UsageLimitExceededError | None:
        """Whether the run must end now (a limit crossed), asked after a message arrives, a
        request is about to go out, a response arrived and a call is about to be checked."""
        return None

    def close(self) -> None:
        """The agent stopped."""


def _whole_response(self: AgentHooks, turn: TurnView, call: CallView) -> bool:
    """``admit_early`` of a hook that still says ``needs_whole_response = True``."""
    return turn.response_done


def overrides(hooks: AgentHooks, name: str) -> bool:
    """Whether ``hooks`` does something at point ``name`` (overrides the base's no-op)."""
    method: Any = getattr(type(hooks), name, None)
    return method is not None and method is not getattr(AgentHooks, name)

"""AgentHooks: the points of a turn that something outside the turn machine may watch.

Modelled on pydantic-ai's capabilities and the OpenAI Agents SDK's lifecycle hooks: a base
class whose methods do nothing, so an implementation overrides only what it needs, and the turn
machine calls every point without asking whether anyone listens.

Each point is called on the agent's actor thread, before anything that depends on it happens
(a tool never starts before ``call_running`` returned; the LLM is never sent a result before
``call_finished`` returned), and before the event that announces it is published. An exception
from a hook fails the turn at once (a session store that cannot be written must not let the
turn go on unrecorded): the hooks after it in the composite are not called for that point,
and the turn's error names the hook and the point (``MyHooks.call_running raised ...``).
Where nothing is left to fail (``turn_ended``, ``run_ended``, ``conversation_reset``,
``close``) the failure is reported and the agent goes on. A hook runs on the actor's thread,
so a slow one holds the agent up; it may ``send`` to its own agent or ``stop`` it (the stop
happens after the current step), but a call that waits for the agent (``run``, ``approve``,
``history``) raises ``OwnThreadError`` there. The hooks are fixed when the config is
made (``AgentConfig.hooks`` is a tuple).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, Protocol

if TYPE_CHECKING:
    from autobyteus_like.errors import UsageLimitExceededError
    from autobyteus_like.events import (
        ConversationReset,
        LLMRequestFailed,
        LLMResponseCompleted,
        UserMessageReceived,
    )
    from autobyteus_like.llm._messages import Message
    from autobyteus_like.parsers._parse_events import ParseErrorInfo
    from autobyteus_like.tools._definition import ToolDefinition
    from autobyteus_like.tools._invocation import ToolInvocation, ToolResult

__all__ = ["AgentHooks", "CallKind", "CallView", "TurnView"]

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


class AgentHooks:
    """Every point of an agent's turns; each does nothing here."""

    needs_whole_response = False
    """Whether a response's calls must wait until it is complete (and ``response_completed``
    returned) before they are checked or started; else a call may start while the LLM is
    still writing the rest of its response."""

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

    def claim(self, turn: TurnView, kind: CallKind) -> UsageLimitExceededError | None:
        """One more LLM request (``"llm_calls"``) or tool call (``"tool_calls"``) is about to
        be made, right now: None lets it go (a meter counts it here, so usage holds what
        happened), an error refuses it (it is never made). A tool call is claimed after it
        was checked and allowed, just before its body starts; a refused call gets a LIMIT
        result. Asked before ``request_sent`` and ``call_running``."""
        return None

    def verdict(self) -> UsageLimitExceededError | None:
        """Whether the run must end now (a limit crossed), asked after a message arrives, a
        request is about to go out, a response arrived and a call is about to be checked."""
        return None

    def close(self) -> None:
        """The agent stopped."""


def overrides(hooks: AgentHooks, name: str) -> bool:
    """Whether ``hooks`` does something at point ``name`` (overrides the base's no-op)."""
    method: Any = getattr(type(hooks), name, None)
    return method is not None and method is not getattr(AgentHooks, name)

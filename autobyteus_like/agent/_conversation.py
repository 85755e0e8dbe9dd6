"""An agent's conversation as its caller reads and sets it: ``history`` (asked of the running
actor, or as it was when the agent stopped), its JSON, and seeding it from a history."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from concurrent.futures import TimeoutError as FutureTimeout
from typing import TYPE_CHECKING

import pykka

from autobyteus_like.agent._actor_messages import ConversationQuery
from autobyteus_like.agent._member_replies import on_own_thread
from autobyteus_like.errors import ConfigError
from autobyteus_like.events import ConversationReset
from autobyteus_like.history._messages import HistoryMessage, history_to_json, parse_history
from autobyteus_like.history._replay import from_history, history_problems, to_history
from autobyteus_like.llm._messages import Message

if TYPE_CHECKING:
    from autobyteus_like.agent._actor import AgentActor
    from autobyteus_like.agent._actor_line import ActorLine
    from autobyteus_like.agent._config import AgentConfig
    from autobyteus_like.agent._toolbox import Toolbox

__all__ = ["Conversation"]


class Conversation:
    """``history``, ``history_json`` and ``seed`` over an agent's actor line and toolbox."""

    __slots__ = ("config", "last", "line", "toolbox")

    def __init__(self, config: AgentConfig, line: ActorLine, toolbox: Toolbox) -> None:
        self.config, self.line, self.toolbox = config, line, toolbox
        self.last: tuple[str, tuple[Message, ...]] | None = None
        """The system prompt and messages as they were when the agent last stopped."""

    def keep_last(self, ref: pykka.ActorRef[AgentActor], timeout: float) -> None:
        """Keep the conversation of an actor about to stop, to be read after it stopped."""
        with contextlib.suppress(pykka.ActorDeadError, FutureTimeout):
            self.last = ref.ask(ConversationQuery(), timeout=timeout)  # type: ignore[assignment]

    @property
    def history(self) -> list[HistoryMessage]:
        """The conversation so far as typed messages (``Agent.history``)."""
        line = self.line
        ref, conversation = line.ref, self.last
        if ref is not None and line.on_own_thread():
            raise on_own_thread(line.name, "history")
        if ref is not None:
            with contextlib.suppress(pykka.ActorDeadError):
                conversation = ref.ask(ConversationQuery(), timeout=30)  # type: ignore[assignment]
        toolbox = self.toolbox
        if conversation is None:
            _, seeded = from_history(parse_history(self.config.history or []), toolbox.format,
                                     toolbox.tools)
            return to_history(seeded, toolbox.format.name, toolbox.prompt)
        system_prompt, messages = conversation
        return to_history(messages, toolbox.format.name, system_prompt)

    def history_json(self, indent: int | None = None) -> str:
        """``history`` as JSON text."""
        return history_to_json(self.history, indent)

    def seed(self, history: Iterable[HistoryMessage]) -> None:
        """Start the conversation over from ``history`` (replayed in the agent's format; a
        system message in it is not used: the agent keeps its own prompt)."""
        typed = parse_history(list(history))
        problems = history_problems(typed)
        line = self.line
        if problems:
            raise ConfigError(f"agent {line.name!r}: history", problems)
        _, messages = from_history(typed, self.toolbox.format, self.toolbox.tools)
        line.tell(ConversationReset(agent=line.name, turn_id=line.next_turn(),
                                    history=tuple(messages)))

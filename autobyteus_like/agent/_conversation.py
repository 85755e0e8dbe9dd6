"""The conversation side of the ``Agent`` facade: reading it (``history``), saving it
(``history_json``), seeding it, and streaming a turn to the caller."""

from __future__ import annotations

import contextlib
import itertools
import threading
from collections.abc import Iterable
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any

import pykka

from autobyteus_like.agent._actor_messages import ConversationQuery
from autobyteus_like.agent._answer_stream import AnswerStream, AsyncAnswerStream
from autobyteus_like.agent._member_replies import on_own_thread
from autobyteus_like.errors import ConfigError
from autobyteus_like.events import AgentEvent, ConversationReset
from autobyteus_like.history._messages import HistoryMessage, history_to_json, parse_history
from autobyteus_like.history._replay import from_history, history_problems, to_history
from autobyteus_like.llm._messages import Message

if TYPE_CHECKING:
    from autobyteus_like.agent._actor import AgentActor
    from autobyteus_like.agent._config import AgentConfig
    from autobyteus_like.agent._subscription import EventSubscription
    from autobyteus_like.formats import ToolFormat

__all__ = ["AgentConversation"]


class AgentConversation:
    """``history``, ``history_json``, ``stream`` and ``astream`` over an agent's own surface."""

    name: str
    config: AgentConfig
    format: ToolFormat
    system_prompt: str
    _ref: pykka.ActorRef[AgentActor] | None
    _turn_ids: itertools.count[int]
    _last_conversation: tuple[str, tuple[Message, ...]] | None
    _threads: list[threading.Thread]

    if TYPE_CHECKING:  # the Agent's own
        def _submit(self, text: str, *, sender: str | None = None, mail_id: str | None = None,
                    trace_parent: object | None = None,
                    history: Iterable[HistoryMessage] | None = None
                    ) -> tuple[int, Future[str]]: ...

        def _tell(self, event: AgentEvent) -> None: ...

        def answer(self, text: str) -> Any: ...

        def events(self, into: EventSubscription | None = None) -> EventSubscription: ...

    def stream(self, text: str, *, history: Iterable[HistoryMessage] | None = None
               ) -> AnswerStream:
        """``with agent.stream(message) as s:`` the turn as it happens: ``s.text()`` (the
        model's text as it arrives, calls' markup excluded), ``s.events()``, ``s.result()``."""
        return AnswerStream(self.name, self.events,
                            lambda: self._submit(text, history=history), self.answer)

    def astream(self, text: str, *, history: Iterable[HistoryMessage] | None = None
                ) -> AsyncAnswerStream:
        """``async with agent.astream(message) as s:`` the same for asyncio code."""
        return AsyncAnswerStream(self.name, self.events,
                                 lambda: self._submit(text, history=history), self.answer)

    @property
    def history(self) -> list[HistoryMessage]:
        """The conversation so far as typed messages: the system prompt, the user's messages,
        each response with its calls, each response's results (with their status). Read
        while the agent runs, or after it stopped (as it was then)."""
        ref = self._ref
        conversation = self._last_conversation
        if ref is not None and threading.current_thread() in self._threads:
            raise on_own_thread(self.name, "history")
        if ref is not None:
            with contextlib.suppress(pykka.ActorDeadError):
                conversation = ref.ask(ConversationQuery(), timeout=30)  # type: ignore[assignment]
        if conversation is None:
            _, seeded = from_history(parse_history(self.config.history or []), self.format)
            return to_history(seeded, self.format.name, self.system_prompt)
        system_prompt, messages = conversation
        return to_history(messages, self.format.name, system_prompt)

    def history_json(self, indent: int | None = None) -> str:
        """``history`` as JSON text; ``history_from_json`` reads it back (to seed an agent)."""
        return history_to_json(self.history, indent)

    def _seed(self, history: Iterable[HistoryMessage]) -> None:
        """Start the conversation over from ``history`` (replayed in this agent's format; a
        system message in it is not used: the agent keeps its own prompt)."""
        typed = parse_history(list(history))
        problems = history_problems(typed)
        if problems:
            raise ConfigError(f"agent {self.name!r}: history", problems)
        _, messages = from_history(typed, self.format)
        self._tell(ConversationReset(agent=self.name, turn_id=next(self._turn_ids),
                                     history=tuple(messages)))


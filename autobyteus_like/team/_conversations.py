"""A team's conversations beyond its default one.

Each conversation is named by a string id and is a team of its own built from the same config:
its own member agents (their own histories), its own mail room, usage and callers' queue, and,
when the team has a session, its own session record ``NAME@ID`` in the same store. It is built
and started on its first message, and stopped with the team. Conversations run concurrently;
the callers of one conversation queue in order (``team/_callers.py``).
"""

from __future__ import annotations

import threading
import unicodedata
from collections.abc import Callable
from concurrent.futures import Future
from typing import Generic, TypeVar

from autobyteus_like.errors import AgentStoppedError, BadRequestError, RunRefusedError

__all__ = ["MAX_ID_LENGTH", "Conversations", "check_conversation_id"]

Team = TypeVar("Team")

MAX_ID_LENGTH = 200
"""The longest conversation id (it is part of a session's name)."""


def check_conversation_id(value: object) -> str:
    """``value`` as a conversation id: a non-empty string of printable characters, at most
    ``MAX_ID_LENGTH`` long; ``BadRequestError`` (a ``ValueError``) saying what is wrong."""
    if not isinstance(value, str):
        raise BadRequestError(f"a conversation id is a string, not {type(value).__name__}")
    if not value.strip():
        raise BadRequestError("a conversation id cannot be empty (leave it out for the "
                              "default conversation)")
    if len(value) > MAX_ID_LENGTH:
        raise BadRequestError(f"a conversation id is at most {MAX_ID_LENGTH} characters "
                              f"(this one has {len(value)})")
    if any(unicodedata.category(char).startswith("C") for char in value):
        raise BadRequestError(f"a conversation id holds printable characters only: {value!r}")
    return value


class Conversations(Generic[Team]):
    """The open conversations of one team: ``get(id)`` builds and starts one on first use
    (``build(id)``; others asking for the same id meanwhile wait for it), ``close`` takes
    them all for the team to stop."""

    def __init__(self, team: str, build: Callable[[str], Team], most: int | None = None
                 ) -> None:
        self._name = team
        self._build = build
        self._most = most
        self._lock = threading.Lock()
        self._open = False
        self._teams: dict[str, Future[Team]] = {}

    def open(self) -> None:
        """The team runs: conversations may be built."""
        with self._lock:
            self._open = True

    def get(self, conversation: str) -> Team:
        """The running team of that conversation, built and started on first use
        (``AgentStoppedError`` once the team stopped)."""
        with self._lock:
            if not self._open:
                raise AgentStoppedError(f"team {self._name!r} is not running")
            made = self._teams.get(conversation)
            mine = made is None
            if made is None:
                if self._most is not None and len(self._teams) >= self._most:
                    raise RunRefusedError(
                        f"team {self._name!r} holds {len(self._teams)} conversations, its "
                        f"most (max_conversations): end one (end_conversation) first")
                made = self._teams[conversation] = Future()
        if mine:
            try:
                made.set_result(self._build(conversation))
            except BaseException as exc:
                with self._lock:
                    if self._teams.get(conversation) is made:
                        del self._teams[conversation]
                made.set_exception(exc)
                raise
        return made.result()

    def take(self, conversation: str) -> Team | None:
        """Take an open conversation out (for the team to stop it); None if none is open."""
        with self._lock:
            made = self._teams.pop(conversation, None)
        if made is None:
            return None
        try:
            return made.result()
        except BaseException:  # its builder raised it to its caller
            return None

    def ids(self) -> list[str]:
        """The conversations open in this process, in the order they began."""
        with self._lock:
            return list(self._teams)

    def close(self) -> list[Team]:
        """The team stops: every conversation built (those being built are waited for);
        none is built from now on."""
        with self._lock:
            self._open = False
            made, self._teams = list(self._teams.values()), {}
        teams = []
        for future in made:
            try:
                teams.append(future.result())
            except BaseException:
                continue
        return teams

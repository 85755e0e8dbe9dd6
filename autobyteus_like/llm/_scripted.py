"""ScriptedLLM: a real provider that answers from a script. The offline default for examples
and tests: it streams like a network model and records exactly what it was shown."""

from __future__ import annotations

import random
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

from autobyteus_like._frozen_values import builder
from autobyteus_like.errors import LLMError, ScriptExhaustedError
from autobyteus_like.llm._base import LLM
from autobyteus_like.llm._messages import (
    LLMChunk,
    LLMRequest,
    Message,
    NativeToolCall,
    TokenUsage,
)
from autobyteus_like.llm._providers import LLMProvider

__all__ = ["FunctionLLM", "ScriptExhaustedError", "ScriptedLLM", "ScriptedReply",
           "ScriptedResponse", "continue_script"]


@dataclass(frozen=True)
class ScriptedReply:
    """A scripted answer with native tool calls, as a provider's decoder would hand them over
    (for agents with ``tool_format="native"``); ``text`` streams first. ``finish_reason`` is
    reported with the last chunk, as a provider would (``"length"``: cut off at max_tokens);
    so is ``usage``, the tokens the reply stands for (offline runs can then show token sums,
    costs and token limits)."""

    text: str = ""
    tool_calls: tuple[NativeToolCall, ...] = field(default_factory=tuple)
    finish_reason: str | None = None
    usage: TokenUsage | None = None


ScriptedResponse = str | ScriptedReply | Callable[[LLMRequest], "str | ScriptedReply"]

_chunk = builder(LLMChunk)


class ScriptedLLM(LLM):
    """Answers each request with the next scripted response (a string, or a callable of the
    request returning one), streamed in chunks.

    ``chunk_size``: None sends each response whole; an int, chunks of that size; a
    ``(low, high)`` pair, random sizes in that range from a generator seeded by ``seed``.
    ``provider`` chooses the default tool format, as a real model of that provider would.

    Which response comes next is the number of responses used so far, from the first
    whatever history the request carries (an agent given a history, ``run(history=...)``, a
    forked session). Only an agent restoring its own session skips the replies that session
    wrote into its history (``continue_after``), so that a resumed run goes on with the reply
    that follows, in any process; a fork's replies copied from its origin, and a teammate's
    replies in a conversation handed over to it, are not skipped, so a scripted model
    continuing a fork starts at its first reply, and a handoff's receiver at its own next one.
    """

    reports_usage = False  # a script has no token usage
    follows_response_schema = True  # it answers as scripted, whatever the schema

    def __init__(
        self,
        responses: Sequence[ScriptedResponse],
        provider: LLMProvider | str = LLMProvider.SCRIPTED,
        chunk_size: int | tuple[int, int] | None = None,
        seed: int = 0,
    ) -> None:
        if isinstance(chunk_size, int) and chunk_size < 1:
            raise ValueError("chunk_size must be at least 1")
        if isinstance(chunk_size, tuple) and not 1 <= chunk_size[0] <= chunk_size[1]:
            raise ValueError("chunk_size range must be (low, high) with 1 <= low <= high")
        self.responses = list(responses)
        self.provider = LLMProvider.parse(provider)
        self.chunk_size = chunk_size
        self._random = random.Random(seed)
        self._lock = threading.Lock()
        self._used = 0
        self._skipped = 0
        self._why_skipped = ""
        self.requests: list[LLMRequest] = []
        """Every request received, in order: what the model was shown."""

    @property
    def remaining(self) -> int:
        """How many scripted responses are still unused."""
        with self._lock:
            return len(self.responses) - self._used

    def continue_after(self, replies: int, why: str) -> None:
        """Go on after the first ``replies`` responses (an agent restoring its own session,
        whose history holds them); ``why`` is said if the script then runs out. Never goes
        back: a response used stays used."""
        with self._lock:
            if replies > self._used:
                self._skipped += replies - self._used
                self._why_skipped = why
                self._used = replies

    def stream(self, request: LLMRequest, cancel: threading.Event) -> Iterator[LLMChunk]:
        with self._lock:
            self.requests.append(request)
            number = self._used
            self._used = min(number + 1, len(self.responses))
            skipped, why = self._skipped, self._why_skipped
        if number >= len(self.responses):
            note = f" (it skipped {skipped}: {why})" if skipped else ""
            raise ScriptExhaustedError(
                f"ScriptedLLM ran out of responses: request {len(self.requests)} arrived but "
                f"all {len(self.responses)} scripted responses were used{note}"
            )
        yield from self._answer(self.responses[number], number, request, cancel)

    def _answer(self, scripted: ScriptedResponse, number: int, request: LLMRequest,
                cancel: threading.Event) -> Iterator[LLMChunk]:
        reply = scripted(request) if callable(scripted) else scripted
        if type(reply) is str and self.chunk_size is None:  # the usual case, in one chunk
            if not cancel.is_set():
                yield _chunk(text=reply, final=True)
            return
        if isinstance(reply, str):
            reply = ScriptedReply(reply)
        if not isinstance(reply, ScriptedReply):
            raise LLMError(f"scripted response {number + 1} is {type(reply).__name__}, "
                           "not text or a ScriptedReply")
        pieces = self._pieces(reply.text)
        finish = reply.finish_reason
        for index, piece in enumerate(pieces):
            if cancel.is_set():
                return
            last = index == len(pieces) - 1 and not reply.tool_calls
            yield _chunk(text=piece, final=last, finish_reason=finish if last else None,
                         provider_finish_reason=finish if last else None,
                         usage=reply.usage if last else None)
        if reply.tool_calls:
            yield _chunk(tool_calls=reply.tool_calls, final=True, finish_reason=finish,
                         provider_finish_reason=finish, usage=reply.usage)

    def _pieces(self, text: str) -> list[str]:
        if self.chunk_size is None or not text:
            return [text]
        pieces = []
        start = 0
        while start < len(text):
            if isinstance(self.chunk_size, int):
                size = self.chunk_size
            else:
                with self._lock:
                    size = self._random.randint(*self.chunk_size)
            pieces.append(text[start : start + size])
            start += size
        return pieces


class FunctionLLM(ScriptedLLM):
    """A model that answers every request with ``answer(request)`` (text or a
    ``ScriptedReply``): the testing kit's ``FunctionModel``. It never runs out; ``requests``
    records what it was shown."""

    def __init__(self, answer: Callable[[LLMRequest], str | ScriptedReply],
                 provider: LLMProvider | str = LLMProvider.SCRIPTED,
                 chunk_size: int | tuple[int, int] | None = None, seed: int = 0) -> None:
        super().__init__([answer], provider=provider, chunk_size=chunk_size, seed=seed)
        self.answer = answer

    @property
    def remaining(self) -> int:
        return 0

    def continue_after(self, replies: int, why: str) -> None:
        """Nothing to skip: every request is answered by the function."""

    def stream(self, request: LLMRequest, cancel: threading.Event) -> Iterator[LLMChunk]:
        with self._lock:
            self.requests.append(request)
        yield from self._answer(self.answer, len(self.requests) - 1, request, cancel)


def continue_script(llm: LLM, restored: Sequence[Message], session: str,
                    inherited: int = 0) -> None:
    """An agent restoring its own session: a scripted LLM goes on after the replies the
    session wrote into its history, and only those: the ``inherited`` replies (a fork's copied
    from its origin, a seeded conversation's, a teammate's in a conversation handed over to
    the agent) are not the script's, so a fork's script starts at its first reply (and a fork
    resumed later skips what the fork wrote)."""
    if isinstance(llm, ScriptedLLM):
        replies = sum(1 for message in restored if message.role == "assistant") - inherited
        llm.continue_after(replies, f"session {session!r} was restored with {replies} "
                                    "replies in its history")

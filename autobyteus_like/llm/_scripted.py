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
from autobyteus_like.llm._messages import LLMChunk, LLMRequest, NativeToolCall, TokenUsage
from autobyteus_like.llm._providers import LLMProvider

__all__ = ["ScriptExhaustedError", "ScriptedLLM", "ScriptedReply", "ScriptedResponse"]


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

    Which response comes next is the number of responses used so far; for the first request,
    the number of assistant messages in its history, so that a conversation restored from a
    session store continues with the reply that follows its history, in any process.
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
        self.requests: list[LLMRequest] = []
        """Every request received, in order: what the model was shown."""

    @property
    def remaining(self) -> int:
        """How many scripted responses are still unused."""
        with self._lock:
            return len(self.responses) - self._used

    def stream(self, request: LLMRequest, cancel: threading.Event) -> Iterator[LLMChunk]:
        with self._lock:
            self.requests.append(request)
            number = self._used
            if not number:
                # A first request may carry a history (a session resumed in a new process):
                # the reply that follows the replies it already holds comes next.
                number = sum(1 for message in request.messages if message.role == "assistant")
            self._used = min(number + 1, len(self.responses))
        if number >= len(self.responses):
            raise ScriptExhaustedError(
                f"ScriptedLLM ran out of responses: request {len(self.requests)} arrived but "
                f"all {len(self.responses)} scripted responses were used"
            )
        scripted = self.responses[number]
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

"""FallbackLLM: several models behind one, tried in order when one fails before answering.

It sits behind the LLM seam, so the turn machine knows nothing of it: the agent sees one LLM
whose stream begins, when a model was given up on, with a chunk saying so (``LLMChunk.switch``,
which the agent publishes as ``LLMModelSwitched`` and puts on its span). Each model encodes
the conversation for its own wire, so a fallback to another provider sends the same history
(native calls and results included) in that provider's terms.

A model is given up on only for the failures ``fallback_on`` names, and only before it has
sent any text or call: what a model has said cannot be taken back, so a failure after that
ends the request as it would without fallback. Each model's own retries (``max_retries``)
come first: a 429 falls back once they are spent.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Literal, get_args

from autobyteus_like.errors import ConfigError, LLMError
from autobyteus_like.llm._base import LLM
from autobyteus_like.llm._messages import LLMChunk, LLMRequest, ModelSwitch

if TYPE_CHECKING:
    from autobyteus_like.tools._definition import ToolDefinition

__all__ = ["DEFAULT_FALLBACK_ON", "FallbackLLM", "FallbackReason", "fallback_reason"]

FallbackReason = Literal["connection", "server_error", "rate_limit", "context_overflow"]
"""``connection``: no response (refused, reset, timed out); ``server_error``: a 5xx (or a
response that failed on the server's side); ``rate_limit``: a 429 once its retries are spent;
``context_overflow``: the request is longer than the model's context window."""

DEFAULT_FALLBACK_ON: tuple[FallbackReason, ...] = get_args(FallbackReason)

_OVERFLOW = re.compile(
    r"context[ _-]?(length|window)|maximum context|prompt is too long|too many tokens|"
    r"exceeds the maximum number of tokens|input is too long|reduce the length",
    re.IGNORECASE)


def fallback_reason(error: LLMError) -> FallbackReason | None:
    """Which kind of failure ``error`` is, if it is one fallback may answer."""
    status = error.status
    if status is None:
        return None if error.server_message else "connection"
    if status == 429:
        return "rate_limit"
    if status >= 500:
        return "server_error"
    if status in (400, 413) and _OVERFLOW.search(error.server_message or str(error)):
        return "context_overflow"
    return None


class FallbackLLM(LLM):
    """``FallbackLLM([primary, backup, ...], fallback_on=("server_error", ...))``. The first
    model's provider chooses the agent's tool format; prices follow the model that answered."""

    def __init__(self, models: Sequence[LLM],
                 fallback_on: Iterable[FallbackReason] = DEFAULT_FALLBACK_ON) -> None:
        models = list(models)
        if len(models) < 2:
            raise ConfigError("FallbackLLM", [f"needs at least two models, got {len(models)}"])
        for index, model in enumerate(models):
            if not isinstance(model, LLM):
                raise ConfigError("FallbackLLM", [f"model {index} is a "
                                                  f"{type(model).__name__}, not an LLM"])
        reasons = tuple(fallback_on)
        unknown = [reason for reason in reasons if reason not in DEFAULT_FALLBACK_ON]
        if unknown:
            raise ConfigError("FallbackLLM", [f"fallback_on: unknown {unknown}; choose from "
                                              f"{list(DEFAULT_FALLBACK_ON)}"])
        self.models = tuple(models)
        self.fallback_on = frozenset(reasons)
        self.provider = models[0].provider
        self.model = _model(models[0])
        self.base_url = getattr(models[0], "base_url", None)

    def check_tools(self, tools: Iterable[ToolDefinition]) -> None:
        """Every model must be able to declare the tools (any may be the one that answers)."""
        listed = list(tools)
        for model in self.models:
            model.check_tools(listed)

    def stream(self, request: LLMRequest, cancel: threading.Event) -> Iterator[LLMChunk]:
        last = len(self.models) - 1
        for index, llm in enumerate(self.models):
            said = False
            try:
                for chunk in llm.stream(request, cancel):
                    said = said or bool(chunk.text or chunk.tool_calls)
                    yield chunk
                return
            except LLMError as error:
                reason = fallback_reason(error)
                if cancel.is_set() or said or index == last or reason not in self.fallback_on:
                    raise
                after = self.models[index + 1]
                yield LLMChunk(switch=ModelSwitch(
                    llm.provider.value, _model(llm), after.provider.value, _model(after),
                    f"{reason}: {error}"))


def _model(llm: LLM) -> str:
    model = getattr(llm, "model", None)
    return model if isinstance(model, str) and model else llm.provider.value

"""LLMWorker: streams an agent's LLM calls off its actor's thread and reports back by events.

Its requests run one at a time, in order, on a pool of one thread (``WorkerPool``) that starts
on the first request and ends after ``LLM_THREAD_IDLE_S`` without one, so an agent that has not
asked its model for a while holds no thread for it (a host of hundreds of mostly idle members
keeps hundreds fewer); the next request starts one again (~0.1 ms, against a request's many).
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from autobyteus_like._frozen_values import builder
from autobyteus_like.agent._worker_pool import WorkerPool
from autobyteus_like.errors import LLMError
from autobyteus_like.events import (
    AgentEvent,
    LLMAdapted,
    LLMChunkReceived,
    LLMModelSwitched,
    LLMRequestFailed,
    LLMResponseCompleted,
)
from autobyteus_like.llm._base import LLM
from autobyteus_like.llm._messages import LLMChunk, LLMRequest

__all__ = ["LLM_THREAD_IDLE_S", "LLMWorker"]

LLM_THREAD_IDLE_S = 30.0
"""The LLM worker's thread ends after this long without a request."""

_chunk_received = builder(LLMChunkReceived)
_completed = builder(LLMResponseCompleted)


class LLMWorker:
    """One per agent. Never blocks its agent: chunks go back with ``post`` as they arrive."""

    def __init__(
        self,
        agent: str,
        llm: LLM,
        post: Callable[[AgentEvent | tuple[AgentEvent, ...]], None],
        cancel: threading.Event,
        threads: list[threading.Thread],
    ) -> None:
        self._agent = agent
        self._llm = llm
        self._post = post
        self._cancel = cancel
        self._pool = WorkerPool(f"{agent}-llm", 1, LLM_THREAD_IDLE_S,
                                started=lambda thread: _keep(threads, thread))

    def send(self, request_no: int, request: LLMRequest) -> None:
        """Stream ``request`` (the turn's ``request_no``) after those sent before it."""
        self._pool.submit(self._stream, request_no, request)

    def stop(self) -> None:
        """No more requests; the one streaming ends when it is cut (``cancel``), its thread
        then (the agent joins it, with a deadline)."""
        self._pool.shutdown(wait=False)

    def _stream(self, number: int, request: LLMRequest) -> None:
        usage, last = None, ""
        finished: LLMChunk | None = None
        carried: list[dict[str, object]] = []
        answered_by: tuple[str, str] | None = None
        fallbacks: list[str] = []
        adapted: list[tuple[str, str, str]] = []
        try:
            for chunk in self._llm.stream(request, self._cancel):
                if self._cancel.is_set():
                    return
                if chunk.switch is not None:  # a fallback model takes over
                    switch = chunk.switch
                    answered_by = (switch.to_provider, switch.to_model)
                    moved = LLMModelSwitched(
                        agent=self._agent, request_no=number, reason=switch.reason,
                        from_model=f"{switch.from_provider}/{switch.from_model}",
                        to_model=f"{switch.to_provider}/{switch.to_model}")
                    fallbacks.append(f"{moved.from_model} -> {moved.to_model}: {moved.reason}")
                    self._post(moved)
                carried.extend(chunk.carried)
                if chunk.adapted is not None:
                    adapted.append((chunk.adapted.what, chunk.adapted.now,
                                    chunk.adapted.reason))
                    self._post(LLMAdapted(agent=self._agent, request_no=number,
                                          what=chunk.adapted.what, now=chunk.adapted.now,
                                          reason=chunk.adapted.reason))
                    continue
                usage = chunk.usage or usage
                if chunk.finish_reason is not None:
                    finished = chunk
                if chunk.final:
                    last = chunk.text
                if chunk.tool_calls or (chunk.text and not chunk.final):
                    self._post(_chunk_received(agent=self._agent, request_no=number,
                                               text="" if chunk.final else chunk.text,
                                               tool_calls=chunk.tool_calls))
        except Exception as exc:  # a provider error is reported, never fatal to the agent
            if self._cancel.is_set():
                return  # the stream was cut because the agent is stopping
            error = exc if isinstance(exc, LLMError) else _unreadable(self._llm, exc)
            self._post(LLMRequestFailed(agent=self._agent, request_no=number, error=str(error),
                                        error_type=type(error).__name__))
            return
        completed = _completed(
            agent=self._agent, request_no=number,
            input_tokens=usage.input_tokens if usage else None,
            output_tokens=usage.output_tokens if usage else None,
            reasoning_tokens=usage.reasoning_tokens if usage else None,
            cached_input_tokens=usage.cached_input_tokens if usage else None,
            finish_reason=finished.finish_reason if finished else None,
            provider_finish_reason=finished.provider_finish_reason if finished else None,
            carried=tuple(carried), answered_by=answered_by, fallbacks=tuple(fallbacks),
            adapted=tuple(adapted),
        )
        if last:  # the last piece and the end travel as one mailbox message, in that order
            self._post((_chunk_received(agent=self._agent, request_no=number, text=last),
                        completed))
        else:
            self._post(completed)


def _unreadable(llm: LLM, exc: Exception) -> LLMError:
    """Anything but an ``LLMError`` from a stream is a response the provider's code could not
    read (a malformed chunk): said as an ``LLMError`` naming the provider and model."""
    model = getattr(llm, "model", None)
    where = f"{llm.provider.value} {model}" if model else llm.provider.value
    try:
        detail = str(exc)[:300]
    except Exception:
        detail = ""
    error = LLMError(f"{where}: the response could not be read ({type(exc).__name__}: "
                     f"{detail})", provider=llm.provider.value, model=model)
    error.__cause__ = exc
    return error


def _keep(threads: list[threading.Thread], thread: threading.Thread) -> None:
    """Add a started thread to the agent's (those it joins when it stops), dropping ended
    ones, so a long-lived agent's list does not grow with each idle spell."""
    threads[:] = [kept for kept in threads if kept.is_alive()] + [thread]

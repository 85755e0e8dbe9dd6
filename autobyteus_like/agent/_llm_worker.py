"""LLMWorker: streams an agent's LLM calls off its actor's thread and reports back by events.

Its requests run one at a time, in order, on a pool of one thread (``WorkerPool``) that starts
on the first request and ends after ``LLM_THREAD_IDLE_S`` without one, so an agent that has not
asked its model for a while holds no thread for it (a host of hundreds of mostly idle members
keeps hundreds fewer); the next request starts one again (~0.1 ms, against a request's many).
A request runs inside the hooks that wrap it (``wrap_model_request``), on this thread; one the
run's end withdraws before this thread began it is never made.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from typing import Any

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
from autobyteus_like.hooks._protocol import LLMCall
from autobyteus_like.hooks._wrapping import Chain
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
        wrapping: Sequence[Callable[..., Any]] = (),
    ) -> None:
        self._agent = agent
        self._llm = llm
        self._post = post
        self._cancel = cancel
        self._wrapping = tuple(wrapping)
        self._queued: set[int] = set()
        """Requests sent and not yet begun: whoever removes one first (its stream beginning,
        or ``withdraw``) has it; each ``set.remove`` is one atomic step, so no lock."""
        self._pool = WorkerPool(f"{agent}-llm", 1, LLM_THREAD_IDLE_S,
                                started=lambda thread: _keep(threads, thread))

    def send(self, request_no: int, request: LLMRequest, turn_id: int = 0) -> None:
        """Stream ``request`` (the turn's ``request_no``) after those sent before it."""
        self._queued.add(request_no)
        self._pool.submit(self._stream, request_no, request, turn_id)

    def withdraw(self) -> int:
        """Requests sent and not begun are never made (the run ended): how many."""
        count = 0
        for number in list(self._queued):
            try:
                self._queued.remove(number)
            except KeyError:  # its stream began first
                continue
            count += 1
        return count

    def stop(self) -> None:
        """No more requests; the one streaming ends when it is cut (``cancel``), its thread
        then (the agent joins it, with a deadline)."""
        self._pool.shutdown(wait=False)

    def _stream(self, number: int, request: LLMRequest, turn_id: int) -> None:
        try:
            self._queued.remove(number)
        except KeyError:
            return  # withdrawn before it began
        usage, last = None, ""
        finished: LLMChunk | None = None
        carried: list[dict[str, object]] = []
        answered_by: tuple[str, str] | None = None
        fallbacks: list[str] = []
        adapted: list[tuple[str, str, str]] = []
        chain = None
        try:
            chunks: Iterable[LLMChunk]
            if self._wrapping:
                chain = Chain(self._wrapping, self._open, streams=True)
                chunks = chain(LLMCall(self._agent, turn_id, number, request))
            else:
                chunks = self._llm.stream(request, self._cancel)
            for chunk in chunks:
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
            hook = chain.own_failure(exc) if chain is not None else None
            if hook is not None:  # a wrapping hook's own failure names it
                self._post(LLMRequestFailed(
                    agent=self._agent, request_no=number, error_type=type(exc).__name__,
                    error=f"the hook {hook} raised {type(exc).__name__}: {_shown(exc)}"))
                return
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

    def _open(self, call: LLMCall) -> Iterable[LLMChunk]:
        """The request itself, at the centre of the wrapping hooks."""
        return self._llm.stream(call.request, self._cancel)


def _shown(exc: BaseException) -> str:
    try:
        return str(exc)[:300]
    except Exception:
        return ""


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

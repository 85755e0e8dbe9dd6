"""PageQuestions: an MCP server's elicitation during a run, asked of the page's person.

The question is a card on the page (the custom event ``elicitation_requested``: its id, the
server, its message, the member whose call it came with, the requested schema, the timeout);
``POST /api/elicitation`` (``{"id", "action": "accept" | "decline" | "cancel", "content"}``)
answers it, once: an accepted answer is checked against the schema first (one that does not
fit is refused and the card stays). No answer within the server's ``elicitation_timeout_s``,
or the run ending (finished, failed, stopped), declines it. Every outcome is the custom event
``elicitation_settled``, which takes the card away on every page watching. Only a holder of
the server's token can reach the route (``AccessGuard``).
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import itertools
import threading
from dataclasses import dataclass
from typing import Any

import anyio.from_thread
from ag_ui.core import CustomEvent
from anyio.lowlevel import EventLoopToken

from autobyteus_like.errors import BadRequestError, DecisionRefusedError
from autobyteus_like.mcp._elicitation import (
    Answer,
    ElicitationRequest,
    WaitingElicitation,
    answer_problem,
)
from autobyteus_like.web._agui_events import PREFIX
from autobyteus_like.web._event_log import EventLog

__all__ = ["PageQuestions"]

_ACTIONS = {"accept", "decline", "cancel"}


@dataclass(eq=False, kw_only=True)
class _Question(WaitingElicitation):
    run: str


class PageQuestions:
    """The elicitations waiting for the page's person."""

    def __init__(self, log: EventLog) -> None:
        self._log = log
        self._numbers = itertools.count(1)
        self._waiting: dict[str, _Question] = {}
        self._lock = threading.Lock()

    def asker(self, run: str, token: EventLoopToken) -> Any:
        """The ``elicit`` of ``run`` (called on a worker thread; ``token``: the server's loop,
        where the log is written)."""

        def ask(request: ElicitationRequest) -> Answer:
            key = f"elicitation-{next(self._numbers)}"
            question = _Question(request=request, run=run)
            with self._lock:
                self._waiting[key] = question
            try:
                anyio.from_thread.run_sync(self._show, key, question, token=token)
                return question.answer.result(timeout=request.timeout_s)
            except concurrent.futures.TimeoutError:
                if question.settle(None):
                    self._tell(token, key, question, "declined",
                               f"no answer within {request.timeout_s:g} s")
                return question.answer.result()
            except Exception:  # the server is stopping: nobody will answer
                question.settle(None)
                return None
            finally:
                with self._lock:
                    self._waiting.pop(key, None)

        return ask

    def _tell(self, token: EventLoopToken, key: str, question: _Question, outcome: str,
              why: str) -> None:
        with contextlib.suppress(Exception):  # (the server stopped: no page to tell)
            anyio.from_thread.run_sync(self._settled, key, question, outcome, why, token=token)

    def _show(self, key: str, question: _Question) -> None:
        request = question.request
        member = request.calls[0][0] if request.calls else None
        self._log.append(question.run, [CustomEvent(
            name=PREFIX + "elicitation_requested", metadata={"member": member} if member else None,
            value={"member": member, "id": key, "server": request.server,
                   "message": request.message, "schema": request.schema,
                   "timeout_s": request.timeout_s})])

    def _settled(self, key: str, question: _Question, outcome: str, why: str) -> None:
        self._log.append(question.run, [CustomEvent(
            name=PREFIX + "elicitation_settled",
            value={"member": None, "id": key, "server": question.request.server,
                   "outcome": outcome, "why": why})])

    def answer(self, key: str, action: str, content: Any) -> str:
        """Answer question ``key`` (on the server's loop); what was done.
        ``DecisionRefusedError`` when it waits no more (answered, declined at its timeout, its
        run ended), ``BadRequestError`` for an unknown action or content that does not fit."""
        with self._lock:
            question = self._waiting.get(key)
        if question is None or question.answer.done():
            raise DecisionRefusedError(f"no question {key!r} waits for an answer (it was "
                                       "answered, declined at its timeout, or its run ended)")
        if action not in _ACTIONS:
            raise BadRequestError(f"'action' is one of accept, decline, cancel, not {action!r}")
        answer: Answer = None if action == "decline" else False
        if action == "accept":
            problem = answer_problem(question.request.schema, content)
            if problem is not None:
                raise BadRequestError(f"the answer does not fit the schema of MCP server "
                                      f"{question.request.server!r}: {problem}")
            answer = dict(content)
        if not question.settle(answer):
            raise DecisionRefusedError(f"question {key!r} was settled meanwhile")
        done = {"accept": "accepted", "decline": "declined", "cancel": "cancelled"}[action]
        self._settled(key, question, done, "by the page's user")
        return f"{done} the question of MCP server {question.request.server!r}"

    def decline_run(self, run: str) -> None:
        """Decline what ``run`` still asks (on the server's loop): the run ended."""
        with self._lock:
            ended = [(k, q) for k, q in self._waiting.items() if q.run == run]
        for key, question in ended:
            if question.settle(None):
                self._settled(key, question, "declined", f"run {run!r} ended")

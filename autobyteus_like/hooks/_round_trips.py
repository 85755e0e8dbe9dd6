"""RoundTripRecorder: one agent's LLM round trips written to its session as they happen (its hooks).

Around each model request (``wrap_model_request``, on the LLM worker) it stores the request as
the model sees it (system prompt, tools manifest, call rules, messages after the history
processors and the text format's rendering: each part once per distinct content; the shaping
layer reports it, ``llm/_sent_requests.py``) as it goes, and the response as the model wrote
it (text, native calls with their ids, usage, finish reason) once its stream ends, or what
came of it when the stream was cut. It also stores the definition of each tool the agent
called (``call_parsed``), so an export can stand in for the tool. Every session records:
nothing to switch on.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Iterable, Iterator
from itertools import chain
from typing import TYPE_CHECKING, Any

from autobyteus_like.hooks._protocol import AgentHooks, CallView, LLMCall, TurnView
from autobyteus_like.hooks._session_writer import message_data
from autobyteus_like.llm._sent_requests import watching_sent
from autobyteus_like.store._recordings import digest_of
from autobyteus_like.store._schema import document

if TYPE_CHECKING:
    from autobyteus_like.llm._messages import LLMChunk, LLMRequest, Message
    from autobyteus_like.store._store import SessionStore
    from autobyteus_like.tools._middleware import ToolCall

__all__ = ["ForkKeys", "RoundTripRecorder", "response_data"]


class RoundTripRecorder(AgentHooks):
    """Records ``agent``'s requests, responses and called tools in ``session``."""

    def __init__(self, store: SessionStore, session: str, agent: str,
                 shaped: bool = False) -> None:
        self.store = store
        self.shaped = shaped
        """Whether a layer below shapes each request (and reports it as sent); when not, a
        request is stored before it goes, as the turn machine made it."""
        self.session = session
        self.agent = agent
        self._seq = store.recordings.next_seq(session, agent)
        self._lock = threading.Lock()
        self._stored: set[str] = set()
        """Digests this recorder stored (or found stored): not sent to the store again."""
        self._digests: dict[int, tuple[Message, str, str]] = {}
        """Each history message's document and digest, by identity (kept with the message,
        so an id is never reused): a message is serialised once, not at every request."""
        self._tools: set[str] = set()
        self._last: tuple[int, list[str]] = (-1, [])
        """The last request's sequence number and message digests."""

    def wrap_model_request(self, call: LLMCall,
                           call_next: Callable[[LLMCall], Iterable[LLMChunk]]
                           ) -> Iterable[LLMChunk]:
        with self._lock:
            seq = self._seq
            self._seq += 1
        if not self.shaped:
            self._record_request(call, seq, call.request)
        return self._recorded(call, call_next, seq)

    def _record_request(self, call: LLMCall, seq: int, sent: LLMRequest) -> None:
        """Store ``sent`` (the request as the model sees it) as request ``seq``."""
        request, blobs = self._parts(sent)
        request["request_no"] = call.request_no
        asked = call.request.messages  # the history it was shaped from (a fork cuts by it)
        request["history"] = {"length": len(asked), "last": digest_of(
            document(message_data(asked[-1]))) if asked else None}
        with self._lock:  # a request that carries the last one's messages names them by it
            last_seq, last = self._last
            self._last = (seq, request["messages"])
        if last and last_seq != seq and request["messages"][:len(last)] == last:
            request["after"] = last_seq
            request["messages"] = request["messages"][len(last):]
        self.store.recordings.record_request(self.session, self.agent, seq, call.turn_id,
                                             request, blobs)

    def _recorded(self, call: LLMCall, call_next: Callable[[LLMCall], Iterable[LLMChunk]],
                  seq: int) -> Iterator[LLMChunk]:
        chunks: list[LLMChunk] = []
        error: str | None = "the stream was cut before its end"
        recorded = not self.shaped

        def sent(request: LLMRequest) -> None:  # shaped (processors, text format) as it goes
            nonlocal recorded
            self._record_request(call, seq, request)
            recorded = True

        try:
            with watching_sent(sent):  # the shaping runs when the stream is opened
                stream = iter(call_next(call))
                first = next(stream, None)
            if not recorded:  # the layer below did not shape it after all
                self._record_request(call, seq, call.request)
                recorded = True
            for chunk in chain(() if first is None else (first,), stream):
                chunks.append(chunk)
                yield chunk
            error = None
        except Exception as exc:
            error = f"{type(exc).__name__}: {exc}"
            raise
        finally:
            if not recorded:
                self._record_request(call, seq, call.request)
            response = response_data(chunks)
            response["complete"] = error is None
            if error is not None:
                response["error"] = error
            self.store.recordings.record_response(self.session, self.agent, seq,
                                                  call.turn_id, response)

    def call_parsed(self, turn: TurnView, call: CallView) -> None:
        tool = call.tool
        if tool is None or tool.name in self._tools:
            return
        self._tools.add(tool.name)
        self.store.recordings.record_tool(self.session, self.agent, tool.name, {
            "name": tool.name, "description": tool.description,
            "schema": tool.json_schema(), "requires_approval": tool.requires_approval,
            "masked_arguments": list(tool.masked_arguments),
            "idempotent": tool.idempotent})

    def _parts(self, request: LLMRequest) -> tuple[dict[str, Any], dict[str, str]]:
        blobs: dict[str, str] = {}

        def address(text: str) -> str:
            digest = digest_of(text)
            if digest not in self._stored:
                self._stored.add(digest)
                blobs[digest] = text
            return digest

        manifest = [{"name": tool.name, "description": tool.description,
                     "schema": tool.json_schema()} for tool in request.tools]
        messages = []
        digests: dict[int, tuple[Message, str, str]] = {}
        for message in request.messages:
            known = self._digests.get(id(message))
            if known is None or known[0] is not message:
                text = document(message_data(message))
                known = (message, text, digest_of(text))
            digests[id(message)] = known
            if known[2] not in self._stored:
                self._stored.add(known[2])
                blobs[known[2]] = known[1]
            messages.append(known[2])
        self._digests = digests  # only the messages still sent are kept
        rules = request.rules
        return {"system_prompt": address(document(request.system_prompt)),
                "tools": address(document(manifest)),
                "messages": messages,
                "rules": {"choice": None if rules.choice is None else str(rules.choice),
                          "parallel": rules.parallel},
                "response_schema": request.response_schema}, blobs


class ForkKeys(AgentHooks):
    """A forked session's copied calls keep their idempotency keys: a copied call run in the
    fork (approved there, say) is given the key of the session it was first made in."""

    def __init__(self, sessions: dict[str, str]) -> None:
        self.sessions = dict(sessions)
        """Each copied call's id -> the session its key derives from."""

    def wrap_tool_call(self, call: ToolCall, call_next: Callable[[ToolCall], Any]) -> Any:
        origin = self.sessions.get(call.invocation.id)
        if origin is not None and call.context.session != origin:
            call = call.replace(context=dataclasses.replace(call.context, session=origin))
        return call_next(call)


def response_data(chunks: Iterable[LLMChunk]) -> dict[str, Any]:
    """A response as the model wrote it, from its chunks."""
    text: list[str] = []
    calls: list[dict[str, Any]] = []
    usage = None
    finish = provider_finish = None
    carried: list[dict[str, Any]] = []
    for chunk in chunks:
        text.append(chunk.text)
        calls += [{"id": call.id, "name": call.name, "arguments": call.arguments}
                  for call in chunk.tool_calls]
        if chunk.usage is not None:
            usage = dataclasses.asdict(chunk.usage)
        finish = chunk.finish_reason or finish
        provider_finish = chunk.provider_finish_reason or provider_finish
        carried += list(chunk.carried)
    return {"text": "".join(text), "tool_calls": calls, "usage": usage,
            "finish_reason": finish, "provider_finish_reason": provider_finish,
            "carried": carried}

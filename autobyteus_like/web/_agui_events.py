"""A team's events as AG-UI events (the ``ag-ui-protocol`` package's types).

One ``AguiRun`` per run translates what the members do into the protocol's own events: each
member's prose between two tool calls is one text message (``TEXT_MESSAGE_START/CONTENT/END``),
each parsed call ``TOOL_CALL_START/ARGS/END`` and its outcome ``TOOL_CALL_RESULT``. What the
protocol has no event for (a call waiting for a person, a member's status, usage and cost,
messages between members) is a ``CUSTOM`` event named ``autobyteus.*``. Every event names its
member in ``metadata.member``; calls are numbered per member in the order the model wrote them,
results carry the order in which they finished. A call's AG-UI id is ``member:id`` (two members
may give their calls the same id); its own id is ``call_id`` in the ``CUSTOM`` events. A
member answering a teammate's call as a tool (``ask:NAME``) speaks as the instance answering
(``callee@caller/call`` for a fresh one), its events naming the call in ``metadata.parent``.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Callable
from typing import Any, ClassVar

from ag_ui.core import (
    BaseEvent,
    CustomEvent,
    RunErrorEvent,
    RunFinishedEvent,
    RunStartedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)
from ag_ui.core.events import RunFinishedCancelledOutcome

from autobyteus_like.events import (
    AgentErrorOccurred,
    AgentEvent,
    AgentStatusChanged,
    ApprovalDenied,
    ApprovalGranted,
    ApprovalRequested,
    AssistantTextDelta,
    ConversationHandedOver,
    LLMRequestFailed,
    LLMResponseCompleted,
    ToolCallParsed,
    ToolCallParseFailed,
    ToolResultReceived,
    ToolStarted,
    TurnCompleted,
)
from autobyteus_like.mail._events import MessageDelivered
from autobyteus_like.team._member_tools import MemberCallEvent
from autobyteus_like.tools._invocation import ToolInvocation, ToolResult
from autobyteus_like.usage._report import UsageReport

__all__ = ["PREFIX", "AguiRun", "result_text", "wire_id"]

PREFIX = "autobyteus."
"""The prefix of this project's ``CUSTOM`` event names."""


def wire_id(member: str, call_id: str) -> str:
    """A call's id on the wire: unique in the team's stream."""
    return f"{member}:{call_id}"


def result_text(result: ToolResult) -> str:
    """What a call returned, as the text a person reads (a failure: ``CODE: message``)."""
    if result.error is not None:
        return f"{result.error.code.value}: {result.error.message}"
    content = result.content
    return content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)


class _Member:
    __slots__ = ("calls", "message", "messages")

    def __init__(self) -> None:
        self.message: str | None = None  # the open text message's id
        self.messages = 0
        self.calls = 0


class AguiRun:
    """Translates one run's events; ``usage`` reads the team's usage when a response ends."""

    def __init__(self, thread_id: str, run_id: str, usage: Callable[[], UsageReport],
                 key: str | None = None) -> None:
        self.thread_id = thread_id
        self.run_id = run_id
        """The run's id on the wire (an AG-UI client's own, or ``key``)."""
        self.key = key or run_id
        """The server's own id of the run: unique among the server's runs."""
        self._usage = usage
        self._members: dict[str, _Member] = {}
        self._calls: dict[tuple[str, str], int] = {}  # (member, call id) -> its number
        self._finished_calls = 0

    def started(self, message: str | None, abandon: str | None = None) -> list[BaseEvent]:
        """``RUN_STARTED`` and the person's message (None: a session goes on; with
        ``abandon``, a reason: its unfinished work is ended instead)."""
        return [RunStartedEvent(thread_id=self.thread_id, run_id=self.run_id,
                                timestamp=_now(), protocol_version="1.0"),
                self._custom("user_message", None, {
                    "text": message, "resumed": message is None and abandon is None,
                    **({} if abandon is None else {"abandon": abandon})})]

    def abandoned(self, reason: str) -> list[BaseEvent]:
        """The session's unfinished work was ended: ``session_abandoned``, ``RUN_FINISHED``."""
        return [self._custom("session_abandoned", None, {"reason": reason}),
                RunFinishedEvent(thread_id=self.thread_id, run_id=self.run_id,
                                 timestamp=_now())]

    def finished(self, answer: Any) -> list[BaseEvent]:
        """The team is quiet: ``RUN_FINISHED`` with the coordinator's answer (a typed
        coordinator's JSON value as it is, not as JSON text)."""
        return [*self._close_all(), RunFinishedEvent(
            thread_id=self.thread_id, run_id=self.run_id, result=answer, timestamp=_now())]

    def stopped(self) -> list[BaseEvent]:
        """Someone stopped the run: ``RUN_FINISHED`` with the outcome ``cancelled``."""
        return [*self._close_all(), RunFinishedEvent(
            thread_id=self.thread_id, run_id=self.run_id, timestamp=_now(),
            outcome=RunFinishedCancelledOutcome())]

    def failed(self, error: str, code: str) -> list[BaseEvent]:
        """The run failed: ``RUN_ERROR`` saying why."""
        return [*self._close_all(), RunErrorEvent(message=error, code=code, timestamp=_now())]

    def member_status(self, member: str, status: str) -> CustomEvent:
        """A member's status, as the ``member_status`` event."""
        return self._custom("member_status", member, {"status": status})

    def translate(self, event: AgentEvent) -> list[BaseEvent]:
        """The AG-UI events one of the team's events stands for (often none)."""
        handler = self._HANDLERS.get(type(event))
        return [] if handler is None else handler(self, event)

    # -- text -------------------------------------------------------------------------------

    def _member(self, name: str) -> _Member:
        member = self._members.get(name)
        if member is None:
            member = self._members[name] = _Member()
        return member

    def _text(self, event: AgentEvent) -> list[BaseEvent]:
        assert isinstance(event, AssistantTextDelta)
        member = self._member(event.agent)
        if not event.text or (member.message is None and event.text.isspace()):
            return []  # no message of whitespace alone (between two calls)
        meta = {"member": event.agent}
        out: list[BaseEvent] = []
        if member.message is None:
            member.messages += 1
            member.message = f"{self.key}.{event.agent}.{member.messages}"
            out.append(TextMessageStartEvent(message_id=member.message, role="assistant",
                                             metadata=meta))
        out.append(TextMessageContentEvent(message_id=member.message, delta=event.text,
                                           metadata=meta))
        return out

    def _close(self, name: str) -> list[BaseEvent]:
        member = self._member(name)
        if member.message is None:
            return []
        message, member.message = member.message, None
        return [TextMessageEndEvent(message_id=message, metadata={"member": name})]

    def _close_all(self) -> list[BaseEvent]:
        return [event for name in list(self._members) for event in self._close(name)]

    def _response_done(self, event: AgentEvent) -> list[BaseEvent]:
        assert isinstance(event, LLMResponseCompleted)
        return [*self._close(event.agent), self._custom("usage", event.agent,
                                                        self._usage().as_json())]

    def _response_failed(self, event: AgentEvent) -> list[BaseEvent]:
        assert isinstance(event, LLMRequestFailed)
        return [*self._close(event.agent), self._custom(
            "member_error", event.agent, {"message": event.error, "type": event.error_type})]

    # -- calls ------------------------------------------------------------------------------

    def _call_events(self, member: str, call: ToolInvocation) -> list[BaseEvent]:
        if (member, call.id) in self._calls:
            return []
        state = self._member(member)
        state.calls += 1
        self._calls[member, call.id] = state.calls
        meta = {"member": member}
        wire = wire_id(member, call.id)
        return [
            *self._close(member),
            ToolCallStartEvent(tool_call_id=wire, tool_call_name=call.name, metadata=meta),
            ToolCallArgsEvent(tool_call_id=wire, delta=json.dumps(call.arguments,
                                                                  ensure_ascii=False),
                              metadata=meta),
            ToolCallEndEvent(tool_call_id=wire, metadata=meta),
            self._call_custom("tool_call", member, call.id, {
                "name": call.name, "number": state.calls, "why": call.why}),
        ]

    def _parsed(self, event: AgentEvent) -> list[BaseEvent]:
        assert isinstance(event, ToolCallParsed)
        return self._call_events(event.agent, event.invocation)

    def _parse_failed(self, event: AgentEvent) -> list[BaseEvent]:
        assert isinstance(event, ToolCallParseFailed)
        return [self._call_custom("parse_failed", event.agent, event.invocation_id,
                                  {"message": event.error.message})]

    def _approval(self, event: AgentEvent) -> list[BaseEvent]:
        assert isinstance(event, ApprovalRequested)
        call = event.invocation
        return [*self._call_events(event.agent, call), self._call_custom(
            "approval_requested", event.agent, call.id,
            {"name": call.name, "arguments": call.arguments})]

    def _decided(self, event: AgentEvent) -> list[BaseEvent]:
        assert isinstance(event, ApprovalGranted | ApprovalDenied)
        denied = isinstance(event, ApprovalDenied)
        return [self._call_custom("approval_decided", event.agent, event.invocation_id, {
            "approved": not denied,
            "reason": event.reason if isinstance(event, ApprovalDenied) else None})]

    def _tool_started(self, event: AgentEvent) -> list[BaseEvent]:
        assert isinstance(event, ToolStarted)
        return [*self._call_events(event.agent, event.invocation),
                self._call_custom("tool_started", event.agent, event.invocation.id, {})]

    def _result(self, event: AgentEvent) -> list[BaseEvent]:
        assert isinstance(event, ToolResultReceived)
        result = event.result
        out = self._call_events(event.agent, ToolInvocation(id=result.invocation_id,
                                                            name=result.tool_name))
        self._finished_calls += 1
        error = result.error
        wire = wire_id(event.agent, result.invocation_id)
        out.append(ToolCallResultEvent(
            message_id=f"{self.key}.result.{wire}", tool_call_id=wire,
            content=result_text(result), role="tool", metadata={"member": event.agent}))
        out.append(self._call_custom("tool_result", event.agent, result.invocation_id, {
            "status": result.status, "code": None if error is None else error.code.value,
            "finished": self._finished_calls}))
        if result.status == "success" and result.tool_name == "memory.advise" and \
                isinstance(result.content, dict):  # the member's working set, as it is now
            out.append(self._custom("working_set", event.agent, {
                kind: [{"path": str(entry.get("path")), "why": str(entry.get("why", ""))}
                       for entry in result.content.get(kind) or [] if isinstance(entry, dict)]
                for kind in ("hot", "cold")}))
        return out

    # -- the rest ---------------------------------------------------------------------------

    def _status(self, event: AgentEvent) -> list[BaseEvent]:
        assert isinstance(event, AgentStatusChanged)
        return [self.member_status(event.agent, event.status.value)]

    def _delivered(self, event: AgentEvent) -> list[BaseEvent]:
        assert isinstance(event, MessageDelivered)
        return [self._custom("message", event.recipient, {
            "sender": event.sender, "recipient": event.recipient, "content": event.content})]

    def _handed_over(self, event: AgentEvent) -> list[BaseEvent]:
        assert isinstance(event, ConversationHandedOver)
        return [self._custom("handed_over", event.sender, {
            "sender": event.sender, "receiver": event.receiver, "reason": event.reason,
            "tool_call_id": wire_id(event.sender, event.invocation_id)})]

    def _turn_done(self, event: AgentEvent) -> list[BaseEvent]:
        assert isinstance(event, TurnCompleted)
        return [*self._close(event.agent), self._custom(
            "turn_completed", event.agent, {"answer": event.answer, "error": event.error})]

    def _member_error(self, event: AgentEvent) -> list[BaseEvent]:
        assert isinstance(event, AgentErrorOccurred)
        return [self._custom("member_error", event.agent,
                             {"message": event.message, "type": event.error_type})]

    def _nested(self, event: AgentEvent) -> list[BaseEvent]:
        """A member answering a call as a tool: its events as those of the instance
        answering (``member``), each naming the call it answers (``parent``, its wire id)
        and the member (``callee``), so a page draws them under that call."""
        assert isinstance(event, MemberCallEvent)
        nested = {"parent": wire_id(event.agent, event.call_id), "callee": event.callee}
        out = self.translate(dataclasses.replace(event.event, agent=event.member))
        for item in out:
            item.metadata = {**(item.metadata or {}), **nested}
            if isinstance(item, CustomEvent) and isinstance(item.value, dict):
                item.value = {**item.value, **nested}
        return out

    def _call_custom(self, name: str, member: str, call_id: str,
                     value: dict[str, Any]) -> CustomEvent:
        return self._custom(name, member, {"tool_call_id": wire_id(member, call_id),
                                           "call_id": call_id, **value})

    def _custom(self, name: str, member: str | None, value: dict[str, Any]) -> CustomEvent:
        return CustomEvent(name=PREFIX + name, value={"member": member, **value},
                           metadata=None if member is None else {"member": member})

    _HANDLERS: ClassVar[dict[type[AgentEvent],
                             Callable[[AguiRun, AgentEvent], list[BaseEvent]]]] = {
        AssistantTextDelta: _text,
        LLMResponseCompleted: _response_done,
        LLMRequestFailed: _response_failed,
        ToolCallParsed: _parsed,
        ToolCallParseFailed: _parse_failed,
        ApprovalRequested: _approval,
        ApprovalGranted: _decided,
        ApprovalDenied: _decided,
        ToolStarted: _tool_started,
        ToolResultReceived: _result,
        AgentStatusChanged: _status,
        MessageDelivered: _delivered,
        ConversationHandedOver: _handed_over,
        TurnCompleted: _turn_done,
        AgentErrorOccurred: _member_error,
        MemberCallEvent: _nested,
    }


def _now() -> int:
    return int(time.time() * 1000)

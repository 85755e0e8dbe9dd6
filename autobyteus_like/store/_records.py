"""What a session store holds, as data: sessions, an agent's history and turns, each call's
state, and the team's mail. Plain frozen records; the store reads and writes them."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

__all__ = [
    "CallRecord",
    "CallState",
    "MailRecord",
    "MailState",
    "MessageRecord",
    "SessionInfo",
    "TurnRecord",
]


class CallState(StrEnum):
    """Where a tool call stands. ``RUNNING`` is committed before the tool starts, and the
    final state (with the result) before the LLM is sent anything that contains it."""

    PARSED = "parsed"
    WAITING_APPROVAL = "waiting_approval"
    APPROVED = "approved"
    DENIED = "denied"
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    INTERRUPTED = "interrupted"

    @property
    def finished(self) -> bool:
        """Whether the call has its result."""
        return self in (CallState.DENIED, CallState.SUCCEEDED, CallState.FAILED,
                        CallState.INTERRUPTED)


class MailState(StrEnum):
    """A team message: committed as QUEUED before delivery, DELIVERED when its recipient's
    turn for it began, ANSWERED (or FAILED) when that turn ended."""

    QUEUED = "queued"
    DELIVERED = "delivered"
    ANSWERED = "answered"
    FAILED = "failed"


@dataclass(frozen=True)
class SessionInfo:
    """One session: its name, the team it runs, and where it stands."""

    name: str
    team: str
    fingerprint: str
    created_ms: int
    updated_ms: int
    status: str
    owner: str | None = None
    lease_until_ms: int | None = None
    config: dict[str, Any] = field(default_factory=dict)
    """What the session was started with: its members and their tools (to explain a changed
    configuration on resume)."""
    generation: int = 0
    """The lease's generation: it grows with every take-over (the fencing token)."""


@dataclass(frozen=True)
class MessageRecord:
    """One message of an agent's history (``epoch`` counts conversation resets)."""

    agent: str
    seq: int
    epoch: int
    role: str
    content: str
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    tool_results: list[dict[str, Any]] = field(default_factory=list)
    request_no: int | None = None
    """For an assistant message: the LLM request it answered."""
    carried: list[dict[str, Any]] = field(default_factory=list)
    """What the provider wants back with an assistant message (``Message.carried``)."""
    images: list[dict[str, Any]] = field(default_factory=list)
    """A user message's images (``Message.images``), as JSON."""


@dataclass(frozen=True)
class TurnRecord:
    """One turn of an agent: the message that started it and how it ended."""

    agent: str
    turn_id: int
    text: str
    sender: str | None
    mail_id: str | None
    state: str  # "queued" (received, not begun) | "open" | "done" | "failed"
    answer: str | None = None
    error: str | None = None
    reset: bool = False
    """A conversation reset waiting its turn, not a message."""


@dataclass(frozen=True)
class CallRecord:
    """One tool call: where it stands, and its result once it has one (``result`` is a
    ``ToolResult`` dumped as JSON)."""

    agent: str
    invocation_id: str
    turn_id: int
    request_no: int
    position: int
    name: str
    arguments: dict[str, Any]
    why: str | None
    state: CallState
    result: dict[str, Any] | None = None


@dataclass(frozen=True)
class MailRecord:
    """One message between members (or from the user, ``sender`` None)."""

    mail_id: str
    seq: int
    sender: str | None
    recipient: str
    content: str
    state: MailState
    answer: str | None = None
    error: str | None = None

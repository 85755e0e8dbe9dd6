"""ToolContext: what the runtime hands a tool that asks for it (a parameter typed ToolContext).

The parameter is not part of the tool's schema: the LLM never sees or fills it.

Each call has an idempotency key (``ToolContext.idempotency_key``, ``call_key``): derived from
(session, member, call id), or (agent, call id) without a session, so it is the same in every
process that runs or settles the call (a resumed run, a re-run of an idempotent tool, the
tool's ``reconcile``). A tool whose side effect can take a key (a payment API's idempotency
key, an ``INSERT ... ON CONFLICT``) passes it on, so a call run twice has its effect once.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from autobyteus_like._frozen_values import fast_frozen
from autobyteus_like.tools._sandbox import SandboxPolicy, default_sandbox

__all__ = ["CancelFlag", "SideLLM", "ToolContext", "WorkingSetView", "call_key"]


class SideLLM(Protocol):
    """The agent's model asked aside from its conversation (``agent/_side_requests.py``):
    each request is claimed and counted like the agent's own (usage and limits)."""

    @property
    def context_tokens(self) -> int:
        """About how many tokens one request may hold (prompt and answer)."""
        ...

    def ask(self, instructions: str, text: str, *, llm: Any = None,
            cancel: CancelFlag | None = None, messages: Sequence[Any] | None = None) -> str:
        """The model's answer to ``text`` under ``instructions`` (``llm``: another model to
        ask instead of the agent's own; ``messages``: a conversation to send instead of
        ``text``, as an MCP server's sampling request has); a ``ToolFailure`` when refused or
        failed."""
        ...


class WorkingSetView(Protocol):
    """The agent's working set (``memory.advise``): hot and cold paths, each with a why."""

    def advise(self, hot: Mapping[str, str], cold: Mapping[str, str]) -> dict[str, Any]:
        """Make ``hot`` paths hot and ``cold`` ones cold; the working set after it."""
        ...


def call_key(agent: str, invocation_id: str, session: str | None = None) -> str:
    """The idempotency key of ``agent``'s call ``invocation_id`` (in ``session``, if it has
    one): 32 hex digits, stable across processes, resumes and retries."""
    parts = [agent, invocation_id] if session is None else [session, agent, invocation_id]
    digest = hashlib.sha256(json.dumps(parts, ensure_ascii=True).encode()).hexdigest()
    return f"abl-{digest[:32]}"


class CancelFlag:
    """Set once, read from any thread: whether a call was cancelled. (A ``threading.Event``
    would do, at ~6 us a call to create; tools only ever poll this.)"""

    __slots__ = ("_set",)

    def __init__(self) -> None:
        self._set = False

    def set(self) -> None:
        """Cancel."""
        self._set = True

    def is_set(self) -> bool:
        """Whether it was cancelled."""
        return self._set


@fast_frozen  # one per call: the dataclass's own __init__ cost ~5,000 instructions
@dataclass(frozen=True, slots=True)
class ToolContext:
    """The calling agent, the invocation, the sandbox that applies to this call, and its
    cancellation: set when the call's timeout passes or the agent stops. A tool that works for
    long (a subprocess, a network wait) checks ``cancelled`` and gives up, so nothing it
    started outlives the call."""

    agent: str = ""
    invocation_id: str = ""
    sandbox: SandboxPolicy = field(default_factory=default_sandbox)
    cancelled: CancelFlag = field(default_factory=CancelFlag, compare=False)
    side_llm: SideLLM | None = field(default=None, compare=False)
    """The agent's model for a tool's own requests (``memory.summarize``); None outside an
    agent."""
    working_set: WorkingSetView | None = field(default=None, compare=False)
    """The agent's working set (``memory.advise``); None outside an agent."""
    session: str | None = None
    """The session the call is stored in (None: the agent has none)."""

    @property
    def idempotency_key(self) -> str:
        """This call's idempotency key (``call_key``): the same wherever the call is run
        again or settled; hand it to a side effect that takes one."""
        return call_key(self.agent, self.invocation_id, self.session)

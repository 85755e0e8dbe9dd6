"""The ``transfer_to_<member>`` tool a member hands its conversation over with (its
``handoffs:``), and how the turn machine and the session writer know one.

Its body does nothing but say so: the hand-over itself happens when the caller's response
settles (the turn ends with it, ``handlers/_handoff.py``) and the team gives the receiver the
conversation (``mail/_room.py``). Marked by its category, so no other tool passes for one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict, field_validator

from autobyteus_like.tools._context import ToolContext
from autobyteus_like.tools._decorator import tool
from autobyteus_like.tools._definition import ToolDefinition

__all__ = ["HANDOFF_CATEGORY", "HANDOFF_PREFIX", "HandoffEntry", "entry_problems",
           "handoff_receiver", "handoff_target", "handoff_tool"]

HANDOFF_CATEGORY = "handoff"
HANDOFF_PREFIX = "transfer_to_"


class HandoffEntry(BaseModel):
    """A ``handoffs:`` entry with options (``{to: billing, requires_approval: true}``) beside
    the plain name: ``requires_approval`` makes its call wait for approve()/deny() under every
    ``approval_policy`` but ``auto_approve_marked``, as the mark does for any tool."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    to: str
    requires_approval: bool = False

    @field_validator("requires_approval", mode="before")
    @classmethod
    def _true_or_false(cls, value: Any) -> Any:
        """true or false: a string such as ``"yes"`` is refused, never read as true."""
        if not isinstance(value, bool):
            raise ValueError(f"requires_approval must be true or false, got {value!r}")
        return value


def entry_problems(entry: dict[Any, Any]) -> list[str]:
    """What is wrong with a ``handoffs:`` entry given as a mapping (plain data, as parsed from
    YAML), each said in words: an unknown key, ``to`` missing or no name, a
    ``requires_approval`` that is not true or false."""
    problems = [f"unknown key {key!r} (an entry has 'to' and 'requires_approval')"
                for key in entry if key not in HandoffEntry.model_fields]
    if "to" not in entry:
        problems.append("'to' is missing (the member the conversation is handed to)")
    elif not isinstance(entry["to"], str):
        problems.append(f"'to' must be a member's name, got {entry['to']!r}")
    approval = entry.get("requires_approval", False)
    if not isinstance(approval, bool):
        problems.append(f"requires_approval must be true or false, got {approval!r}")
    return problems


def handoff_target(entry: str | HandoffEntry) -> tuple[str, bool]:
    """The member a ``handoffs:`` entry names, and whether its handoff waits for approval."""
    if isinstance(entry, HandoffEntry):
        return entry.to, entry.requires_approval
    return entry, False


def handoff_tool(receiver: str, role: str = "", *, requires_approval: bool = False,
                 summary: Callable[[ToolContext], str] | None = None) -> ToolDefinition:
    """``transfer_to_<receiver>``: hand the conversation over to the member ``receiver``
    (described by its ``role``), with a ``reason``; marked ``requires_approval`` when asked.
    ``summary``: what its result adds (the receiver's ``handoff_history: summary``)."""

    def transfer(reason: str, ctx: ToolContext) -> str:
        added = summary(ctx) if summary is not None else ""
        return f"Transferred to {receiver}.{added}"

    about = f" ({role.strip()})" if role.strip() else ""
    transfer.__doc__ = (
        f"Hand this conversation over to your teammate {receiver}{about}: they go on with it "
        f"and answer the user from now on. Use it when {receiver} is the right one to help.\n\n"
        f"Args:\n    reason: Why {receiver} should take over, in one sentence.")
    # Idempotent: it has no side effect; a call its process died running runs again.
    return tool(name=f"{HANDOFF_PREFIX}{receiver}", category=HANDOFF_CATEGORY,
                idempotent=True, requires_approval=requires_approval)(transfer)


def handoff_receiver(tool: ToolDefinition | None) -> str | None:
    """The member a handoff tool hands over to (None: not a handoff tool)."""
    if tool is None or tool.category != HANDOFF_CATEGORY:
        return None
    return tool.name.removeprefix(HANDOFF_PREFIX)

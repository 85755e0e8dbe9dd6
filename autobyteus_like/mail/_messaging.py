"""send_message_to: the tool members use to talk to each other, one bound copy per member, and
the one answer every runtime gives to a message that cannot be delivered."""

from __future__ import annotations

from collections.abc import Collection
from typing import Protocol

from autobyteus_like.errors import ToolFailure
from autobyteus_like.tools._context import ToolContext
from autobyteus_like.tools._decorator import tool
from autobyteus_like.tools._definition import ToolDefinition
from autobyteus_like.tools._invocation import ErrorCode

__all__ = ["SEND_MESSAGE_TOOL", "Router", "check_recipient", "send_message_tool"]

SEND_MESSAGE_TOOL = "send_message_to"
"""The name of the tool members write to each other with."""


class Router(Protocol):
    """Delivers a message between members, or raises ``ToolFailure`` saying why it cannot."""

    def deliver(self, sender: str, recipient: str, content: str, call_id: str = "") -> str:
        """Deliver and return a confirmation for the sender. ``call_id`` is the sender's call
        that sends it: with a session, its message is delivered once however often the call
        runs; with tracing, its span becomes the parent of the receiver's turn."""


def check_recipient(sender: str, recipient: str, members: Collection[str]) -> None:
    """``ToolFailure`` when ``sender`` cannot write to ``recipient`` (itself, or no one of
    that name), naming whom it can write to: the same answer on every runtime. A message
    that can be delivered costs one lookup (``members`` is a mapping or set); the list of
    teammates is made only for the failure."""
    if recipient != sender and recipient in members:
        return
    teammates = [name for name in members if name != sender]
    suggestion = (f"send to one of: {', '.join(teammates)}" if teammates else
                  "you have no teammates; answer with your result instead of a message")
    if recipient == sender:
        raise ToolFailure(ErrorCode.INVALID_ARGS, "you cannot send a message to yourself",
                          suggestion=suggestion)
    raise ToolFailure(ErrorCode.NOT_FOUND, f"there is no teammate named {recipient!r}",
                      suggestion=suggestion)


def send_message_tool(router: Router, sender: str) -> ToolDefinition:
    """The ``send_message_to`` tool as ``sender`` uses it."""

    def send_message_to(recipient_name: str, content: str, context: ToolContext) -> str:
        """Send a message to a teammate. It is delivered at once and handled when they are free;
        they answer with a message of their own.

        Args:
            recipient_name: The teammate's name, exactly as listed.
            content: What to tell them; include everything they need to act.
        """
        return router.deliver(sender, recipient_name, content, context.invocation_id)

    # Idempotent: a call that was running when the process died runs again on resume, and the
    # router delivers a call's message only once.
    return tool(name=SEND_MESSAGE_TOOL, category="team", idempotent=True)(send_message_to)

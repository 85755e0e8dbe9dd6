"""Mail between the members of a team, below both the team and the runtimes that host its
members: ``send_message_to`` and the one answer to an undeliverable message (``messaging``),
the ``MailRoom`` that delivers, counts messages in flight and says when the team is quiet, and
its events (``MessageDelivered``, ``TeamQuiescent``)."""

from autobyteus_like.mail._events import MessageDelivered, TeamQuiescent
from autobyteus_like.mail._messaging import (
    SEND_MESSAGE_TOOL,
    Router,
    check_recipient,
    send_message_tool,
)
from autobyteus_like.mail._room import Mailbox, MailRoom

__all__ = [
    "SEND_MESSAGE_TOOL",
    "MailRoom",
    "Mailbox",
    "MessageDelivered",
    "Router",
    "TeamQuiescent",
    "check_recipient",
    "send_message_tool",
]

"""Teams: configuration (Python or YAML) and the running team: its roster, tool sources,
session and usage; its conversations (``conversation=ID``), each caller's place in one
(``CallerTurn``). Its mail (``send_message_to``, delivery, quiescence) is the mail room below
(``autobyteus_like.mail``), which the runtimes that host its members share."""

from autobyteus_like.mail._events import MessageDelivered, TeamQuiescent
from autobyteus_like.team._callers import CallerTurn
from autobyteus_like.team._config import SEND_MESSAGE_TOOL, TeamConfig
from autobyteus_like.team._conversations import check_conversation_id
from autobyteus_like.team._member_tools import MemberCallEvent
from autobyteus_like.team._team import AgentTeam

__all__ = [
    "SEND_MESSAGE_TOOL",
    "AgentTeam",
    "CallerTurn",
    "MemberCallEvent",
    "MessageDelivered",
    "TeamConfig",
    "TeamQuiescent",
    "check_conversation_id",
]

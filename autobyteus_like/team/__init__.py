"""Teams: configuration (Python or YAML), the running team, and its messaging tool."""

from autobyteus_like.mail.mail_events import MessageDelivered, TeamQuiescent
from autobyteus_like.team.team import AgentTeam
from autobyteus_like.team.team_config import SEND_MESSAGE_TOOL, TeamConfig

__all__ = [
    "SEND_MESSAGE_TOOL",
    "AgentTeam",
    "MessageDelivered",
    "TeamConfig",
    "TeamQuiescent",
]

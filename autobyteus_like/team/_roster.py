"""The ``{{team}}`` placeholder of a member's system prompt: its teammates, each with its role
(a roster only where a prompt asks for one: O(members))."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from autobyteus_like.team._config import TeamConfig

__all__ = ["with_roster"]

_TEAM_PLACEHOLDER = re.compile(r"\{\{\s*team\s*\}\}")


def with_roster(config: TeamConfig, member: str, prompt: str) -> str:
    """``prompt`` with ``{{team}}`` replaced by ``member``'s teammates."""
    if not _TEAM_PLACEHOLDER.search(prompt):
        return prompt
    return _TEAM_PLACEHOLDER.sub(roster(config, member).replace("\\", "\\\\"), prompt)


def roster(config: TeamConfig, member: str) -> str:
    """``member``'s teammates, one a line, the coordinator marked."""
    lines = []
    for other in config.members:
        if other.name == member:
            continue
        role = f": {other.role}" if other.role else ""
        lead = " (coordinator)" if other.name == config.coordinator else ""
        lines.append(f"- {other.name}{lead}{role}")
    return "\n".join(lines) or "(no teammates)"

"""A member's system prompt in its team: ``{{team}}`` becomes the roster of its teammates
(each with its role, the coordinator marked)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from autobyteus_like.team._config import TeamConfig

__all__ = ["team_prompt"]

_TEAM_PLACEHOLDER = re.compile(r"\{\{\s*team\s*\}\}")


def team_prompt(config: TeamConfig, member: str, prompt: str) -> str:
    """``prompt`` with a roster where it asks for one (O(members), only then)."""
    if not _TEAM_PLACEHOLDER.search(prompt):
        return prompt
    return _TEAM_PLACEHOLDER.sub(_roster(config, member).replace("\\", "\\\\"), prompt)


def _roster(config: TeamConfig, member: str) -> str:
    lines = []
    for other in config.members:
        if other.name == member:
            continue
        role = f": {other.role}" if other.role else ""
        lead = " (coordinator)" if other.name == config.coordinator else ""
        lines.append(f"- {other.name}{lead}{role}")
    return "\n".join(lines) or "(no teammates)"

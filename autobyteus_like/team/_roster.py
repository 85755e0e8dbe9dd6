"""A team's roster: the ``{{team}}`` placeholder of a member's system prompt (its teammates,
each with its role; only where a prompt asks for one: O(members)), a member or fresh instance
found by name, and the members' usage."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from autobyteus_like.errors import UnknownMemberError
from autobyteus_like.team._member_tools import root_caller

if TYPE_CHECKING:
    from autobyteus_like.agent._agent import Agent
    from autobyteus_like.runtime._member import Callee, Member
    from autobyteus_like.team._config import TeamConfig
    from autobyteus_like.team._member_tools import MemberCalls
    from autobyteus_like.usage._totals import UsageTotals

__all__ = ["find_member", "members_usage", "with_roster"]

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


def find_member(team: str, agents: dict[str, Member], calls: MemberCalls,
                name: str) -> Member | Agent | Callee:
    """The member ``name``, or the fresh instance of that address (``callee@caller/call``)
    running in this process or where its caller's member runs (a Ray host), to decide its
    calls; else ``UnknownMemberError`` naming the members."""
    found: Member | Agent | Callee | None = agents.get(name) or calls.instance(name)
    if found is None and "@" in name and (caller := agents.get(root_caller(name))):
        found = caller.callee(name)
    if found is None:
        raise UnknownMemberError(team, name, list(agents))
    return found


def members_usage(agents: dict[str, Member], calls: MemberCalls) -> dict[str, UsageTotals]:
    """Each member's run, with its fresh instances' added under the callee: those run in
    this process and those its calls ran where it runs (a Ray host)."""
    totals = calls.usage({name: agent.usage.run for name, agent in agents.items()})
    for agent in agents.values():
        totals = calls.usage(totals, agent.asked_usage())
    return totals

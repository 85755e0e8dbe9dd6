"""The agent card of a served team: its name and description, the coordinator's role, one
skill per member, and the JSON-RPC interface it answers at."""

from __future__ import annotations

from typing import Any

from autobyteus_like.team import TeamConfig

__all__ = ["team_card"]

_VERSION = "0.1"


def team_card(config: TeamConfig, url: str, *, bearer: bool = False) -> Any:
    """The ``AgentCard`` of the team served at ``url`` (with a bearer security scheme when a
    token guards it)."""
    from a2a.types import (
        AgentCapabilities,
        AgentCard,
        AgentInterface,
        AgentSkill,
        HTTPAuthSecurityScheme,
        SecurityRequirement,
        SecurityScheme,
        StringList,
    )

    coordinator = next(m for m in config.members if m.name == config.coordinator)
    about = config.description or f"The team {config.name!r}"
    if coordinator.role:
        about += f"; its coordinator {coordinator.name} {coordinator.role}"
    skills = [AgentSkill(id=member.name, name=member.name,
                         description=member.role or f"member {member.name} of {config.name}",
                         tags=["coordinator" if member.name == config.coordinator else "member"])
              for member in config.members]
    card = AgentCard(
        name=config.name, description=about, version=_VERSION,
        supported_interfaces=[AgentInterface(url=url, protocol_binding="JSONRPC",
                                             protocol_version="1.0")],
        capabilities=AgentCapabilities(streaming=True, push_notifications=False),
        default_input_modes=["text/plain"], default_output_modes=["text/plain"],
        skills=skills)
    if bearer:
        card.security_schemes["bearer"].CopyFrom(SecurityScheme(
            http_auth_security_scheme=HTTPAuthSecurityScheme(scheme="Bearer")))
        card.security_requirements.append(SecurityRequirement(
            schemes={"bearer": StringList(list=[])}))
    return card

"""A2A (Agent2Agent) with the official ``a2a-sdk`` (``pip install 'autobyteus-like[a2a]'``):
a team served as an A2A agent (``serve_a2a``, ``autobyteus-like serve-a2a``), its agent card at
``/.well-known/agent-card.json`` and the JSON-RPC binding of A2A 1.0 at ``/``; and a remote A2A
agent as a team member (``RemoteA2AAgent``, given as the member's ``llm``, or ``a2a: {url: ...}``
in YAML: ``A2AMember``) or as a tool
(``remote_agent_tool``; one tool per skill of its card: ``remote_skill_tools``; in YAML
``ask:NAME`` / ``ask:NAME.SKILL`` / ``ask:NAME.*`` of an ``a2a:`` member: docs/teams.md).

Importing this package loads no A2A SDK; building or serving an app does.
"""

from autobyteus_like.a2a._remote_tool import (
    remote_agent_tool,
    remote_agent_tools,
    remote_skill_tools,
)
from autobyteus_like.a2a._server import build_a2a_app, serve_a2a
from autobyteus_like.llm._remote_a2a import A2AMember, RemoteA2AAgent, RemoteQuestion

__all__ = ["A2AMember", "RemoteA2AAgent", "RemoteQuestion", "build_a2a_app", "remote_agent_tool",
           "remote_agent_tools", "remote_skill_tools", "serve_a2a"]

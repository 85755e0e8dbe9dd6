"""MCPPromptRef: a member's system prompt taken from an MCP server's prompt (in YAML,
``prompt: {server: s, name: n, arguments: {...}}``), filled in when the member first needs its
prompt, from the team's running server; ``PromptMessage``: a user message taken from one (a
team's ``message: {prompt: {...}}``, which ``run`` sends when given no ``--message``).
(Here, not in ``mcp``: a config that names no server
loads nothing of the MCP package; the server is found among the agent's tool sources.)"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from autobyteus_like.errors import ToolFailure

__all__ = ["MCPPromptRef", "MCPResourceRef", "PromptMessage", "check_prompt_data"]


class MCPPromptRef(BaseModel):
    """Which prompt of which server, and its arguments."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    server: str = Field(min_length=1)
    name: str = Field(min_length=1)
    arguments: dict[str, str] = Field(default_factory=dict)

    def text(self, sources: Iterable[Any]) -> str:
        """The prompt's text from the server among ``sources`` (tool sources: an
        ``MCPToolset`` has ``prompt``); ``ValueError`` naming what went wrong."""
        where = f"prompt {self.name!r} of MCP server {self.server!r}"
        found = _server(sources, self.server, "prompt", where)
        try:
            text = str(found.prompt(self.name, self.arguments).text)
        except ToolFailure as exc:
            raise ValueError(f"{where}: {exc.message}") from None
        if not text.strip():
            raise ValueError(f"{where}: the server gave an empty prompt")
        return text


class MCPResourceRef(BaseModel):
    """A resource of a server, attached to a message (``{server, uri}``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    server: str = Field(min_length=1)
    uri: str = Field(min_length=1, max_length=4_096)

    def attach(self, message: str, sources: Iterable[Any]) -> str:
        """``message`` with the resource's text after it (``MCPToolset.attach``: cut like a
        result); ``ValueError`` naming what went wrong."""
        where = f"resource {self.uri!r} of MCP server {self.server!r}"
        found = _server(sources, self.server, "attach", where)
        try:
            return str(found.attach(message, self.uri))
        except ToolFailure as exc:
            raise ValueError(f"{where}: {exc.message}") from None


class PromptMessage(BaseModel):
    """A user message taken from an MCP server's prompt (a team's ``message:``), with the
    resources to attach to it (``resources: [{server, uri}, ...]``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    prompt: MCPPromptRef
    resources: list[MCPResourceRef] = Field(default_factory=list, max_length=16)

    def text(self, sources: Iterable[Any]) -> str:
        """The message: the prompt's text, each resource after it (``ValueError``)."""
        found = list(sources)
        text = self.prompt.text(found)
        for resource in self.resources:
            text = resource.attach(text, found)
        return text


def check_prompt_data(data: Any) -> Any:
    """A member's data, refused when it gives both ``system_prompt`` and ``prompt``."""
    if isinstance(data, dict) and data.get("prompt") is not None and \
            data.get("system_prompt") is not None:
        raise ValueError("give system_prompt or prompt (an MCP server's), not both")
    return data


def _server(sources: Iterable[Any], server: str, method: str, where: str) -> Any:
    """The tool source that is MCP server ``server`` and has ``method`` (``ValueError`` from
    ``where`` when the team has none)."""
    found = next((s for s in sources if getattr(s, "namespace", None) == server
                  and callable(getattr(s, method, None))), None)
    if found is None:
        raise ValueError(f"{where}: the team has no MCP server named {server!r}")
    return found

"""MCPServerConfig: how to reach one MCP server and what its tools may do, as data.

The same model backs ``MCPToolset.stdio``/``.http`` in Python and each entry of a team file's
``mcp_servers:``. It never imports the MCP SDK: checking a config needs no server.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

__all__ = ["SERVER_NAME", "MCPServerConfig"]

SERVER_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_\-]{0,47}$")
"""A server's name is the namespace of its tools (``fs`` in ``fs.read_file``): no dots, so a
tool name splits at its first dot, and short, so namespaced names stay within 128 characters."""

_STDIO_ONLY = ("args", "env", "cwd")
_HTTP_ONLY = ("headers", "transport")


class MCPServerConfig(BaseModel):
    """One MCP server: a command to start (stdio) or a URL to reach (streamable HTTP, or SSE
    where a server only speaks that), plus the policy for its tools.

    Tool names in ``allow``, ``deny``, ``requires_approval`` and ``masked_arguments`` are the
    server's own names (``read_file``, not ``fs.read_file``); ``*``, ``?`` and ``[...]`` match
    as in shell patterns.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    command: str | None = Field(default=None, min_length=1)
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    """Added to the small environment the SDK passes on (PATH, HOME, USER, SHELL, TERM, LOGNAME):
    a server sees nothing else of ours."""
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = Field(default_factory=dict)
    transport: Literal["auto", "streamable-http", "sse"] = "auto"
    """``auto``: streamable HTTP, falling back to SSE when the server answers 4xx (as the MCP
    specification's backwards-compatibility section describes)."""
    allow: list[str] | None = None
    """Only these tools are offered (None: all but the denied)."""
    deny: list[str] = Field(default_factory=list)
    """These tools are never offered, whatever ``allow`` says."""
    requires_approval: bool | list[str] = False
    """True, or the tools whose calls wait for approval (under the agent's ``marked`` policy)."""
    masked_arguments: dict[str, list[str]] = Field(default_factory=dict)
    """Tool pattern -> arguments whose values are masked in events, logs and the session log."""
    timeout_s: float | None = Field(default=None, gt=0)
    """Each call's timeout (None: the agent's ``tool_timeout_s``); at the timeout the server is
    sent an MCP cancellation."""
    startup_timeout_s: float = Field(default=30.0, gt=0)
    """How long starting the server and listing its tools may take."""
    max_result_chars: int = Field(default=100_000, ge=1_000)
    """Text of one result beyond this is cut, with a note saying how much was left out."""
    max_message_bytes: int = Field(default=8_000_000, ge=65_536)
    """A message from a stdio server longer than this is not read (nor parsed): the call it
    answers fails at once with a TOOL_ERROR saying how big it was."""
    resources_tool: bool = False
    """Offer ``<name>.read_resource``: a tool reading one of this server's resources by URI
    (its text cut at ``max_result_chars``), its description listing the resources."""
    elicitation_timeout_s: float = Field(default=300.0, gt=0)
    """How long a person may take to answer the server's request for input; then it is
    declined."""
    sampling: bool = False
    """Whether the server may ask for LLM completions (answered by the toolset's sampler)."""
    sampling_timeout_s: float = Field(default=120.0, gt=0)
    """How long one completion the server asked for may take; then it is refused."""

    @field_validator("url")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        if value is not None and not re.match(r"^https?://[^\s/]+", value):
            raise ValueError(f"url must start with http:// or https:// and name a host, got "
                             f"{value!r}")
        return value

    @model_validator(mode="after")
    def _one_way_to_reach_it(self) -> MCPServerConfig:
        if (self.command is None) == (self.url is None):
            raise ValueError("give either a command (a stdio server) or a url (an HTTP server)")
        given = self.model_fields_set
        wrong = _HTTP_ONLY if self.command is not None else _STDIO_ONLY
        misplaced = [name for name in wrong if name in given]
        if misplaced:
            kind = "a stdio server (command)" if self.command is not None else (
                "an HTTP server (url)")
            raise ValueError(f"{', '.join(misplaced)} cannot be given for {kind}")
        return self

    @property
    def kind(self) -> Literal["stdio", "http"]:
        """How the server is reached."""
        return "stdio" if self.command is not None else "http"

    def describe(self) -> str:
        """The command line or the URL, for messages."""
        if self.command is not None:
            return " ".join([self.command, *self.args])
        assert self.url is not None
        return self.url

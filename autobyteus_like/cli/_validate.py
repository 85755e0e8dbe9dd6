"""The ``validate`` command: load a team's YAML and its tools, build the team (prompts and
registries), start its MCP servers once to resolve every member's tools, and warn of a missing
provider SDK; nothing runs."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from autobyteus_like._extras import missing_package
from autobyteus_like.cli._tools import load_tools
from autobyteus_like.errors import ConfigError
from autobyteus_like.llm._spec import LLMSpec
from autobyteus_like.team import AgentTeam, TeamConfig

if TYPE_CHECKING:
    from autobyteus_like.agent._config import AgentConfig

__all__ = ["add_validate_command"]


def add_validate_command(commands: Any) -> None:
    """``validate TEAM.yaml [--tools ...]``."""
    validate = commands.add_parser("validate", help="check a team's YAML file",
                                   description="Check a team's YAML file without running it.")
    validate.add_argument("team", help="the team's YAML file")
    validate.add_argument("--tools", metavar="FILE.py:NAME", action="append",
                          help="where the tools named in the config come from (repeatable)")
    validate.set_defaults(handler=_validate)


def _validate(args: argparse.Namespace) -> int:
    tools = load_tools(args.tools)
    config = TeamConfig.from_yaml(args.team, tools=tools)
    team = AgentTeam(config, tools=tools)  # prompts and registries build too
    if team.sources:
        _check_sources(team, args.team)
    members = ", ".join(f"{m.name} ({m.resolved_format()})" for m in config.members)
    print(f"{args.team}: valid team {config.name!r}; coordinator {config.coordinator}; "
          f"members: {members}")
    for member in config.members:
        _warn_missing_sdk(member)
    return 0


def _check_sources(team: AgentTeam, source: str) -> None:
    """Start the team's tool sources (its MCP servers) at once, list each one's tools, resolve
    every member's tool names against them, stop them; ``ConfigError`` with one line per
    server that failed (or name nothing provides)."""
    started = [(tool_source, tool_source.acquire()) for tool_source in team.sources]
    problems: list[str] = []
    try:
        for tool_source, future in started:
            try:
                future.result()
            except ConfigError as exc:
                problems.extend(exc.problems and [f"{exc.source}: {p}" for p in exc.problems])
                continue
            names = [tool.name for tool in tool_source.tools()]
            print(f"mcp server {tool_source.namespace!r}: {len(names)} tools: "
                  f"{', '.join(names) or '(none)'}")
            for left_out in getattr(tool_source, "problems", []):
                print(f"mcp server {tool_source.namespace!r}: {left_out}")
        if not problems:
            for agent in team.agents.values():
                try:
                    agent.resolve_tools()
                except ValueError as exc:
                    problems.append(str(exc))
    finally:
        for tool_source, _ in started:
            tool_source.release()
    if problems:
        raise ConfigError(source, problems)


def _warn_missing_sdk(member: AgentConfig) -> None:
    """A valid team may still not run here: say so when a member's provider SDK is missing."""
    if not isinstance(member.llm, LLMSpec) or member.llm.provider == "scripted":
        return
    extra = member.llm.provider if member.llm.provider in ("anthropic", "gemini") else "openai"
    package = missing_package(extra)
    if package is not None:
        print(f"warning: member {member.name!r}: the {member.llm.provider} provider needs the "
              f"{package} package to run: pip install 'autobyteus-like[{extra}]'",
              file=sys.stderr)

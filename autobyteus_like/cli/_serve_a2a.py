"""``serve-a2a TEAM.yaml``: the team as an A2A agent (JSON-RPC binding of A2A 1.0), loopback
by default, optionally behind a bearer token read from an environment variable."""

from __future__ import annotations

import argparse
import os
from typing import Any

from autobyteus_like._extras import require_extra
from autobyteus_like.cli._serve import _address, _open_session
from autobyteus_like.cli._sessions import add_session_options
from autobyteus_like.cli._tools import load_tools
from autobyteus_like.errors import UsageError
from autobyteus_like.team import TeamConfig

__all__ = ["add_serve_a2a_command"]


def add_serve_a2a_command(commands: Any) -> None:
    """``serve-a2a TEAM.yaml [--tools ...] [--http HOST:PORT] [--token-env NAME]
    [--session NAME]``."""
    command = commands.add_parser(
        "serve-a2a", help="serve a team as an A2A agent (JSON-RPC over HTTP)",
        description="Serve a team as an A2A agent: its card at /.well-known/agent-card.json, "
                    "A2A 1.0 JSON-RPC at /. Needs autobyteus-like[a2a].")
    command.add_argument("team", help="the team's YAML file")
    command.add_argument("--tools", metavar="FILE.py:NAME", action="append",
                         help="where the tools named in the config come from (repeatable)")
    command.add_argument("--http", metavar="HOST:PORT", type=_address,
                         default=("127.0.0.1", 0),
                         help="where to listen (default 127.0.0.1 and a free port, printed "
                              "on stderr)")
    command.add_argument("--token-env", metavar="NAME",
                         help="require 'Authorization: Bearer <the value of $NAME>' on every "
                              "request but the agent card's (needed off loopback)")
    command.add_argument("--approve", metavar="PATTERN", action="append",
                         help="approve calls to tools matching this pattern (repeatable); "
                              "other calls that need approval are denied")
    command.add_argument("--yes", "-y", action="store_true",
                         help="approve every call that needs approval")
    command.add_argument("--max-conversations", metavar="N", type=int, default=100,
                         help="the most A2A contexts open at once (each a conversation of "
                              "the team; past it the one unused longest is let go; default "
                              "100)")
    add_session_options(command, "the team's conversations (each A2A context its own record "
                                 "NAME@CONTEXT, continued after a restart)")
    command.set_defaults(handler=_serve_a2a)


def _serve_a2a(args: argparse.Namespace) -> int:
    require_extra("a2a", "serve-a2a")
    from autobyteus_like.a2a import serve_a2a
    from autobyteus_like.serving._approval import ApprovalPolicy
    from autobyteus_like.serving._team_host import TeamHost

    token = None
    if args.token_env is not None:
        token = os.environ.get(args.token_env, "")
        if len(token) < 16:
            raise UsageError(f"--token-env {args.token_env}: the variable must hold a token "
                             "of at least 16 characters")
    if args.max_conversations < 1:
        raise UsageError(f"--max-conversations {args.max_conversations}: give at least 1")
    tools = load_tools(args.tools)
    config = TeamConfig.from_yaml(args.team, tools=tools)
    approved = ["*"] if args.yes else list(args.approve or [])
    session = _open_session(args, config)
    try:
        host = TeamHost(config, tools=tools, policy=ApprovalPolicy(approved), session=session,
                        max_conversations=args.max_conversations)
        serve_a2a(host, http=args.http, token=token)
    finally:
        if session is not None:
            session.close()
    return 0

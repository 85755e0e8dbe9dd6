"""The serving commands: ``serve-mcp`` (the team as an MCP server, over stdio or HTTP) and
``serve`` (the team on a local web page, AG-UI over SSE). Each needs its extra; without it the
command says which in one line."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from autobyteus_like._extras import require_extra
from autobyteus_like.cli._sessions import (
    add_session_options,
    store_folder_refused,
    team_store_location,
)
from autobyteus_like.cli._tools import load_tools
from autobyteus_like.errors import UsageError
from autobyteus_like.team import TeamConfig

if TYPE_CHECKING:
    from autobyteus_like.store import Session

__all__ = ["add_serve_commands"]


def add_serve_commands(commands: Any) -> None:
    """``serve-mcp TEAM.yaml`` and ``serve TEAM.yaml``."""
    serve_mcp = commands.add_parser(
        "serve-mcp", help="serve a team as an MCP server (stdio, or --http)",
        description="Serve a team as an MCP server: the tool ask_<team> gives the coordinator "
                    "a message and returns its answer. Needs autobyteus-like[mcp].")
    serve_mcp.add_argument("team", help="the team's YAML file")
    serve_mcp.add_argument("--tools", metavar="FILE.py:NAME", action="append",
                           help="where the tools named in the config come from (repeatable)")
    serve_mcp.add_argument("--http", metavar="HOST:PORT", type=_address,
                           help="serve streamable HTTP at http://HOST:PORT/mcp instead of stdio "
                                "(port 0: a free port, printed on stderr)")
    serve_mcp.add_argument("--members", action="store_true",
                           help="also offer ask_<member> for each member")
    serve_mcp.add_argument("--approve", metavar="PATTERN", action="append",
                           help="approve calls to tools matching this pattern (repeatable); "
                                "other calls that need approval are denied")
    serve_mcp.add_argument("--yes", "-y", action="store_true",
                           help="approve every call that needs approval")
    add_session_options(serve_mcp, "the team's work (each ask a new run of it)")
    unfinished = serve_mcp.add_mutually_exclusive_group()
    unfinished.add_argument("--resume", action="store_true",
                            help="with --session: go on with what its last process left "
                                 "unfinished before serving (without this or --abandon, such "
                                 "a session is refused)")
    unfinished.add_argument("--abandon", metavar="REASON",
                            help="with --session: end what its last process left unfinished "
                                 "(its turn fails with REASON) before serving")
    serve_mcp.set_defaults(handler=_serve_mcp)
    serve = commands.add_parser(
        "serve", help="watch and steer a team in the browser (AG-UI over SSE)",
        description="Serve a team on a local web page: send it messages, watch every member, "
                    "approve or deny calls, stop a run. Prints the URL (with its token). "
                    "Needs autobyteus-like[web].")
    serve.add_argument("team", help="the team's YAML file")
    serve.add_argument("--tools", metavar="FILE.py:NAME", action="append",
                       help="where the tools named in the config come from (repeatable)")
    add_session_options(serve, "the team's work")
    serve.add_argument("--http", metavar="HOST:PORT", type=_address,
                       default=("127.0.0.1", 0),
                       help="where to listen (default 127.0.0.1 and a free port)")
    serve.set_defaults(handler=_serve_web)


def _address(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:PORT`` for IPv6; port 0 takes a free one) (argparse type)."""
    host, _, port = text.rpartition(":")
    host = host.strip("[]")
    if not host or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise argparse.ArgumentTypeError(f"expected HOST:PORT such as 127.0.0.1:8765, got "
                                         f"{text!r}")
    return host, int(port)


def _open_session(args: argparse.Namespace, config: TeamConfig) -> Session | None:
    """The session ``--session`` names in its store (None without it), as ``run`` opens it:
    started, or continued; held (leased) once the team starts."""
    if args.session is None:
        return None
    from autobyteus_like.store import Session

    location = args.store or team_store_location(args.team, config.store)
    store_folder_refused(location)
    return Session(args.session, location)


def _serve_mcp(args: argparse.Namespace) -> int:
    """Serve the team as an MCP server until the client leaves or a signal arrives."""
    require_extra("mcp", "serve-mcp")
    from autobyteus_like.serving._approval import ApprovalPolicy
    from autobyteus_like.serving._mcp_server import serve
    from autobyteus_like.serving._team_host import TeamHost

    if args.session is None and (args.resume or args.abandon is not None):
        raise UsageError(f"{'--resume' if args.resume else '--abandon'} needs --session NAME "
                         "(the session whose unfinished work to settle)")
    if args.abandon is not None and not args.abandon.strip():
        raise UsageError("--abandon needs a reason (it is stored as the turn's error)")
    tools = load_tools(args.tools)
    config = TeamConfig.from_yaml(args.team, tools=tools)
    approved = ["*"] if args.yes else list(args.approve or [])
    session = _open_session(args, config)
    try:
        host = TeamHost(config, tools=tools, policy=ApprovalPolicy(approved), session=session)
        serve(host, http=args.http, members=args.members, resume=args.resume,
              abandon=args.abandon)
    finally:
        if session is not None:
            session.close()
    return 0


def _serve_web(args: argparse.Namespace) -> int:
    """Serve the team on a local web page (AG-UI over SSE) until a signal arrives."""
    require_extra("web", "serve")
    from autobyteus_like.serving._team_host import TeamHost
    from autobyteus_like.web import serve_web

    tools = load_tools(args.tools)
    config = TeamConfig.from_yaml(args.team, tools=tools)
    session = _open_session(args, config)
    try:
        serve_web(TeamHost(config, tools=tools, session=session), http=args.http)
    finally:
        if session is not None:
            session.close()
    return 0

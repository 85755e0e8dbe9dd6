"""The command line: ``autobyteus-like run TEAM.yaml --message ...``, ``validate``,
``serve-mcp``, and for durable sessions ``sessions``, ``approve`` and ``deny``.

Exit codes: 0 the run finished (or the config is valid); 1 the run failed or timed out; 2 the
command, the config, the tools or the session store could not be used; 3 the run stopped to
wait for a person (``--detach-on-approval``).
"""

from __future__ import annotations

import argparse
import logging
import math
import shlex
import sys
import time
import traceback
import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING, NoReturn, TextIO

from autobyteus_like import __version__
from autobyteus_like.cli_sessions import (
    WaitingForPeople,
    add_session_commands,
    open_run_session,
    print_waiting,
    team_store_location,
)
from autobyteus_like.cli_tools import load_tools
from autobyteus_like.cli_view import EventView, JsonView, RichView
from autobyteus_like.errors import (
    AutobyteusLikeError,
    ConfigError,
    MissingExtraError,
    StoreError,
    UnknownApprovalError,
    UsageError,
)
from autobyteus_like.events import ApprovalRequested
from autobyteus_like.extras import missing_package
from autobyteus_like.llm.spec import LLMSpec
from autobyteus_like.team import AgentTeam, TeamConfig, TeamQuiescent
from autobyteus_like.tracing import Tracing, configure_tracing

if TYPE_CHECKING:
    from autobyteus_like.agent.config import AgentConfig
    from autobyteus_like.store import Session

__all__ = ["load_tools", "main"]


def _seconds(text: str) -> float:
    """A positive, finite number of seconds (argparse type)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive, finite number of seconds: {text!r}")
    if value > _MAX_SECONDS:
        raise argparse.ArgumentTypeError(f"at most {_MAX_SECONDS:g} seconds (a year): {text!r}")
    return value


_MAX_SECONDS = 365 * 24 * 3600.0
"""The longest ``--timeout``: far beyond any run, and within what the clock can count to."""


def _decide(event: ApprovalRequested, team: AgentTeam, args: argparse.Namespace,
            view: EventView) -> None:
    call = event.invocation
    if args.yes:
        team.approve(event.agent, call.id)
        view.note(f"approved {call.name} for {event.agent} (--yes)")
    elif sys.stdin.isatty() and not args.json:
        approved, reason = view.ask_approval(event)
        try:
            if approved:
                team.approve(event.agent, call.id)
            else:
                team.deny(event.agent, call.id, reason)
        except UnknownApprovalError as exc:  # its turn ended while the person thought
            view.note(f"{'approved' if approved else 'denied'} too late: {exc}")
    else:
        team.deny(event.agent, call.id,
                  "no terminal to ask for approval; run with --yes to approve every call")
        view.note(f"denied {call.name} for {event.agent}: no terminal and no --yes")


def _run(args: argparse.Namespace) -> int:
    """Run the team until it is quiet, the deadline passes or the user interrupts; stopping
    cuts every member's LLM request and tool at once. With ``--session`` every step is stored,
    and the run first goes on with what the session's last run left unfinished."""
    if args.message is not None and not args.message.strip():
        raise UsageError("--message is empty: say what the coordinator should do")
    tools = load_tools(args.tools)
    config = TeamConfig.from_yaml(args.team, tools=tools)
    session = open_run_session(args, config)
    provider = configure_tracing(args.trace) if args.trace else None
    try:
        tracing = None if provider is None else Tracing(
            provider=provider, capture_content=True if args.trace_content else None)
        team = AgentTeam(config, tools=tools, session=session, tracing=tracing)
        return _run_team(args, team, session)
    finally:
        if provider is not None:
            provider.shutdown()  # exports what is still batched
        if session is not None:
            session.close()


def _run_team(args: argparse.Namespace, team: AgentTeam, session: Session | None
              ) -> int:
    view: EventView = JsonView(sys.stdout) if args.json else RichView(verbose=args.verbose)
    started = time.perf_counter()
    deadline = started + args.timeout
    outcome: TeamQuiescent | None = None
    failure: str | None = None
    detached = False
    waiting = WaitingForPeople()
    with team:
        events = team.events()
        resumed = team.begin_resume() if session is not None else False
        if args.message is not None:
            team.send(args.message)
        elif not resumed:
            assert session is not None  # without --session, a message is required
            return _finished_already(args, team, session, view)
        try:
            while (event := events.get(timeout=max(0.0, deadline - time.perf_counter()))):
                view.show(event)
                if args.detach_on_approval and waiting.only_people_left(event):
                    detached = True
                    break
                if isinstance(event, ApprovalRequested) and not args.detach_on_approval:
                    _decide(event, team, args, view)
                elif isinstance(event, TeamQuiescent):
                    outcome = event
                    break
        except TimeoutError:
            failure = f"the team was still busy after {args.timeout:g} s; stopped it"
            view.note(failure)
    if session is not None and session.lost is not None:  # taken over: nothing after counts
        print(f"error: {session.lost}".splitlines()[0], file=sys.stderr)
        return 2
    if detached:
        assert session is not None  # --detach-on-approval needs --session
        store_flag = f" --store {args.store}" if args.store else f" --team {args.team}"
        print_waiting(session.store, session.name, store_flag)
        print(f"stopped to wait for a person; go on with `{_resume_command(args)}`",
              file=sys.stderr)
        return 3
    if team.usage_limit_error is not None:  # a limit ended the run, whatever was answered
        failure = str(team.usage_limit_error)
    view.summary(outcome, time.perf_counter() - started, team.usage, error=failure)
    if failure is None and outcome is not None and outcome.error is not None:
        failure = f"the run failed: {outcome.error}"
    if failure is not None:
        print(f"error: {failure}".splitlines()[0], file=sys.stderr)
        return 1
    return 0


def _finished_already(args: argparse.Namespace, team: AgentTeam, session: Session,
                      view: EventView) -> int:
    """Resuming a session whose last run finished shows how it ended (as a durable engine
    returns a finished workflow's result): its answer (exit 0) or its error (exit 1)."""
    coordinator = team.config.coordinator
    asked = [turn for turn in session.store.turns(session.name, coordinator)
             if not turn.reset and turn.state in ("done", "failed")]  # as TeamQuiescent
    if not asked:
        raise UsageError(f"session {args.session!r} has nothing unfinished and no answer yet; "
                         "pass --message to add a turn")
    last = asked[-1]
    view.note(f"session {args.session!r} has nothing unfinished: its last run's outcome "
              "(pass --message to add a turn)")
    error = last.error if last.state == "failed" else None
    view.summary(TeamQuiescent(agent=team.name, answer=last.answer or "", error=error), 0.0)
    if error is not None:
        print(f"error: the run failed: {error}".splitlines()[0], file=sys.stderr)
        return 1
    return 0


def _resume_command(args: argparse.Namespace) -> str:
    """The whole command that goes on with a detached run: the same team, tools, store and
    options, without the message (the session holds it)."""
    words = ["autobyteus-like", "run", args.team, "--session", args.session]
    for spec in args.tools or []:
        words += ["--tools", spec]
    if args.store:
        words += ["--store", args.store]
    words += [flag for flag, on in (("--fsync", args.fsync), ("--json", args.json),
                                    ("--detach-on-approval", True)) if on]
    if args.trace:
        words += ["--trace", args.trace]
    return shlex.join(words)


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


def _address(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:PORT`` for IPv6; port 0 takes a free one) (argparse type)."""
    host, _, port = text.rpartition(":")
    host = host.strip("[]")
    if not host or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise argparse.ArgumentTypeError(f"expected HOST:PORT such as 127.0.0.1:8765, got "
                                         f"{text!r}")
    return host, int(port)


def _serve_mcp(args: argparse.Namespace) -> int:
    """Serve the team as an MCP server until the client leaves or a signal arrives."""
    try:
        from autobyteus_like.serving.approval import ApprovalPolicy
        from autobyteus_like.serving.mcp_server import serve
        from autobyteus_like.serving.team_host import TeamHost
    except ImportError as exc:
        raise UsageError(f"serve-mcp needs the MCP SDK ({exc.name} is missing): "
                         "pip install 'autobyteus-like[mcp]'") from None
    tools = load_tools(args.tools)
    config = TeamConfig.from_yaml(args.team, tools=tools)
    approved = ["*"] if args.yes else list(args.approve or [])
    host = TeamHost(config, tools=tools, policy=ApprovalPolicy(approved))
    serve(host, http=args.http, members=args.members)
    return 0


def _serve_web(args: argparse.Namespace) -> int:
    """Serve the team on a local web page (AG-UI over SSE) until a signal arrives."""
    try:
        from autobyteus_like.serving.team_host import TeamHost
        from autobyteus_like.web import serve_web
    except ImportError as exc:
        raise UsageError(f"serve needs the web extra ({exc.name} is missing): "
                         "pip install 'autobyteus-like[web]'") from None
    tools = load_tools(args.tools)
    config = TeamConfig.from_yaml(args.team, tools=tools)
    session = None
    if args.session is not None:
        from autobyteus_like.store import Session

        session = Session(args.session, args.store or team_store_location(args.team,
                                                                          config.store))
    try:
        serve_web(TeamHost(config, tools=tools, session=session), http=args.http)
    finally:
        if session is not None:
            session.close()
    return 0


def _quiet_libraries(debug: bool) -> None:
    """The MCP SDK and its HTTP stack log tracebacks through ``logging`` for things this
    command already reports in one line; they are heard only with ``--debug``."""
    if not debug:
        for name in ("mcp", "httpx2", "httpcore2", "uvicorn", "sse_starlette"):
            logging.getLogger(name).setLevel(logging.CRITICAL)


class _OneLineParser(argparse.ArgumentParser):
    """argparse, but a usage mistake is one ``error:`` line (the usage is one ``--help``
    away), like every other failure of this command."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"error: {self.prog}: {message} (see {self.prog} --help)\n")


def _parser() -> argparse.ArgumentParser:
    parser = _OneLineParser(
        prog="autobyteus-like", description="Run and check multi-agent teams described in YAML."
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument("--debug", action="store_true",
                        help="show the full traceback of a failure")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    run = commands.add_parser("run", help="run a team on a message and show the run live",
                              description="Run a team on a message and show the run live.")
    run.add_argument("team", help="the team's YAML file")
    run.add_argument("--message", "-m",
                     help="what to tell the coordinator (with --session: optional; without it "
                          "the session's unfinished turn goes on)")
    run.add_argument("--tools", metavar="FILE.py:NAME", action="append",
                     help="where the tools named in the config come from (a tool, a list of "
                          "tools, a ToolRegistry, or a function returning one); a module is "
                          "looked for in the current folder first, as python -m does; "
                          "repeatable, e.g. --tools autobyteus_like.tools:builtin_tools for "
                          "fs.read and friends")
    run.add_argument("--json", action="store_true", help="print events as JSON lines")
    run.add_argument("--yes", "-y", action="store_true", help="approve every tool call")
    run.add_argument("--verbose", "-v", action="store_true",
                     help="show whole arguments and results in the live view")
    run.add_argument("--timeout", type=_seconds, default=300.0,
                     help="give up after this many seconds (default 300)")
    run.add_argument("--session", metavar="NAME",
                     help="store the run as durable session NAME (started, or continued)")
    run.add_argument("--store", metavar="PATH_OR_URL",
                     help="the session store: a SQLite file or a postgresql:// URL (default: "
                          "the team's store:, or TEAM.sessions.db beside the YAML file)")
    run.add_argument("--fsync", action="store_true",
                     help="with a SQLite store: sync every commit to disk, so the session also "
                          "survives a power loss (slower; a process crash is survived without)")
    run.add_argument("--detach-on-approval", action="store_true",
                     help="with --session: exit (code 3) when everything left waits for a "
                          "person; decide with `approve`/`deny`, then run again")
    run.add_argument("--trace", choices=["console", "otlp"],
                     help="export OpenTelemetry spans: to stderr, or over OTLP/HTTP to "
                          "$OTEL_EXPORTER_OTLP_ENDPOINT (needs autobyteus-like[otel])")
    run.add_argument("--trace-content", action="store_true",
                     help="record prompts, answers, arguments and results in the spans "
                          "(redacted as events are); off by default")
    run.set_defaults(handler=_run)
    validate = commands.add_parser("validate", help="check a team's YAML file",
                                   description="Check a team's YAML file without running it.")
    validate.add_argument("team", help="the team's YAML file")
    validate.add_argument("--tools", metavar="FILE.py:NAME", action="append",
                          help="where the tools named in the config come from (repeatable)")
    validate.set_defaults(handler=_validate)
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
    serve_mcp.set_defaults(handler=_serve_mcp)
    serve = commands.add_parser(
        "serve", help="watch and steer a team in the browser (AG-UI over SSE)",
        description="Serve a team on a local web page: send it messages, watch every member, "
                    "approve or deny calls, stop a run. Prints the URL (with its token). "
                    "Needs autobyteus-like[web].")
    serve.add_argument("team", help="the team's YAML file")
    serve.add_argument("--tools", metavar="FILE.py:NAME", action="append",
                       help="where the tools named in the config come from (repeatable)")
    serve.add_argument("--session", metavar="NAME",
                       help="keep the team's work as durable session NAME (started, or "
                            "continued)")
    serve.add_argument("--store", metavar="PATH_OR_URL",
                       help="the session store (default: the team's store:, or "
                            "TEAM.sessions.db beside the YAML file)")
    serve.add_argument("--http", metavar="HOST:PORT", type=_address,
                       default=("127.0.0.1", 0),
                       help="where to listen (default 127.0.0.1 and a free port)")
    serve.set_defaults(handler=_serve_web)
    add_session_commands(commands)
    _debug_anywhere(parser)
    return parser


def _debug_anywhere(parser: argparse.ArgumentParser) -> None:
    """Let ``--debug`` come after a subcommand too (``run team.yaml --debug``)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                sub.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                                 help="show the full traceback of a failure")
                _debug_anywhere(sub)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the exit code (0 done, 1 the run failed, 2 bad config or usage,
    130 interrupted). Every expected failure is one located line per problem on stderr;
    ``--debug`` adds the traceback."""
    args = _parser().parse_args(argv)
    _quiet_libraries(args.debug)
    with warnings.catch_warnings():
        warnings.simplefilter("default")
        warnings.showwarning = _warning_line
        return _handle(args)


def _warning_line(message: Warning | str, category: type[Warning], filename: str, lineno: int,
                  file: TextIO | None = None, line: str | None = None) -> None:
    """A warning (a tool without a description, say) as one line on stderr."""
    print(f"warning: {filename}, line {lineno}: {message}", file=sys.stderr)


def _handle(args: argparse.Namespace) -> int:
    try:
        code: int = args.handler(args)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except (ConfigError, UsageError, StoreError, MissingExtraError) as exc:  # StoreError: a
        # store or session that cannot be used (in use by another process, a newer release)
        _report(exc, args.debug)
        if isinstance(exc, ConfigError) and not getattr(args, "tools", None) and any(
                problem.startswith("members[") and "unknown tool" in problem
                for problem in exc.problems):
            print("hint: the config names tools of your own; pass --tools FILE.py:NAME "
                  "(or module:NAME) that provides them", file=sys.stderr)
        return 2
    except AutobyteusLikeError as exc:
        _report(exc, args.debug)
        return 1
    return code


def _report(exc: BaseException, debug: bool) -> None:
    if debug:
        traceback.print_exception(exc, file=sys.stderr)
    for line in str(exc).splitlines() or [type(exc).__name__]:
        print(f"error: {line}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())

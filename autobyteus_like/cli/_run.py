"""The ``run`` command: a team on a message, shown live until it is quiet, the deadline passes
or the user interrupts; approvals are asked at the terminal, given by ``--yes``, or (with
``--detach-on-approval``) left to ``approve``/``deny`` while the process exits with code 3."""

from __future__ import annotations

import argparse
import math
import shlex
import sys
import time
from typing import TYPE_CHECKING, Any

from rich.console import Console

from autobyteus_like.agent._member_llm import format_lines
from autobyteus_like.cli._elicitation import TERMINAL, TerminalElicitation, mcp_sources
from autobyteus_like.cli._sessions import (
    WaitingForPeople,
    add_session_options,
    open_run_session,
    print_waiting,
)
from autobyteus_like.cli._tools import load_tools
from autobyteus_like.cli._view import EventView, JsonView, RichView
from autobyteus_like.errors import ConfigError, UnknownApprovalError, UsageError
from autobyteus_like.events import AgentEvent, ApprovalRequested
from autobyteus_like.team import AgentTeam, TeamConfig, TeamQuiescent
from autobyteus_like.team._member_tools import as_instance_event
from autobyteus_like.tracing import Tracing, configure_tracing

if TYPE_CHECKING:
    from autobyteus_like.agent._subscription import EventSubscription
    from autobyteus_like.store import Session

__all__ = ["add_run_command"]


def add_run_command(commands: Any) -> None:
    """``run TEAM.yaml --message ...`` and its options."""
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
                     help="stop the run after this many seconds (default 300), counted from "
                          "when the team has started: starting its MCP servers and placing "
                          "its Ray hosts is bounded by their own startup_timeout_s and "
                          "start_timeout_s instead")
    add_session_options(run, "the run")
    run.add_argument("--record", metavar="FILE", help="record the run (no --session) as a new "
                     "session in the SQLite file FILE: `sessions export` makes it a test")
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


_FROM_PROMPT = "(the team's message, from an MCP server's prompt)"


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
    from autobyteus_like.llm._remote_a2a import REMOTE_ANSWER_NAME  # (the CLI starts light)

    call = event.invocation
    if args.yes and call.name == REMOTE_ANSWER_NAME and not _can_ask(args):
        team.deny(event.agent, call.id,  # a remote agent's question is a person's to answer
                  "a remote agent's question needs a person's answer and none was there to "
                  "ask (--yes never answers one); nothing was sent to it")
        view.note(f"denied {call.name} for {event.agent}: --yes never answers a remote "
                  "agent's question")
    elif args.yes and call.name != REMOTE_ANSWER_NAME:
        team.approve(event.agent, call.id)
        view.note(f"approved {call.name} for {event.agent} (--yes)")
    elif _can_ask(args):
        with TERMINAL:  # (an MCP server's question may be on the terminal now)
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
                  f"{call.name} needs a person's approval and none was there to ask (no "
                  "terminal, no --yes); the call did not run")
        view.note(f"denied {call.name} for {event.agent}: no terminal and no --yes "
                  "(--session NAME waits for `approve` instead)")


def _can_ask(args: argparse.Namespace) -> bool:
    """Whether a person is at a terminal to answer approvals (not with ``--json``)."""
    return sys.stdin.isatty() and not args.json


def _run(args: argparse.Namespace) -> int:
    """Run the team until it is quiet, the deadline passes or the user interrupts; stopping
    cuts every member's LLM request and tool at once. With ``--session`` every step is stored,
    and the run first goes on with what the session's last run left unfinished."""
    if args.message is not None and not args.message.strip():
        raise UsageError("--message is empty: say what the coordinator should do")
    tools = load_tools(args.tools)
    config = TeamConfig.from_yaml(args.team, tools=tools)
    if args.message is None and config.message is not None:
        args.message = _FROM_PROMPT  # (its text once the team's MCP servers run)
    session = open_run_session(args, config)
    provider = configure_tracing(args.trace) if args.trace else None
    try:
        tracing = None if provider is None else Tracing(
            provider=provider, capture_content=True if args.trace_content else None)
        # an MCP server's elicitation asks the person at the terminal; with none (no tty,
        # --json) it is declined at once, and --yes never answers one
        asker = TerminalElicitation(Console(highlight=False)) if _can_ask(args) else None
        config, sources = mcp_sources(config, asker)
        team = AgentTeam(config, tools=[*(tools or ()), *sources], session=session,
                         tracing=tracing)
        return _run_team(args, team, session, sources)
    finally:
        if provider is not None:
            provider.shutdown()  # exports what is still batched
        if session is not None:
            session.close()


def _run_team(args: argparse.Namespace, team: AgentTeam, session: Session | None,
              sources: tuple[Any, ...] = ()) -> int:
    coordinator = next(member for member in team.config.members
                       if member.name == team.config.coordinator)
    view: EventView = (JsonView(sys.stdout, typed=coordinator.output_spec() is not None)
                       if args.json else RichView(verbose=args.verbose))
    outcome: TeamQuiescent | None = None
    failure: str | None = None
    detached = False
    waiting = WaitingForPeople()
    # nobody to ask under --session: stop (exit 3) for `approve`/`deny` rather than refuse
    detach_on_approval = args.detach_on_approval or (
        session is not None and not args.yes and not _can_ask(args))
    if isinstance(view, RichView):  # which format each member uses, and why
        for line in format_lines(team.config.members, session.store if session else None):
            view.note(line)
    with team:
        started = time.perf_counter()  # the run's time: the team's start-up is not counted
        deadline = started + args.timeout
        events = team.events()
        resumed = team.begin_resume() if session is not None else False
        if args.message is _FROM_PROMPT:  # the team's message: an MCP server's prompt
            assert team.config.message is not None
            try:
                args.message = team.config.message.text(sources)
            except ValueError as exc:
                raise ConfigError(f"{args.team}: message", [str(exc)]) from None
        if args.message is not None:
            team.send(args.message)
        elif not resumed:
            assert session is not None  # without --session, a message is required
            return _finished_already(args, team, session, view)
        try:
            while (event := _next_event(events, deadline)):
                view.show(event)
                if detach_on_approval and waiting.only_people_left(event):
                    detached = True
                    break
                if isinstance(asked := as_instance_event(event), ApprovalRequested) \
                        and not detach_on_approval:  # (a callee's call too: by its address)
                    _decide(asked, team, args, view)
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


_SIGNAL_CHECK_S = 0.25
"""The longest the main thread waits for an event at once. The kernel hands a Ctrl-C (a
process-directed SIGINT) to any thread that does not block it, and under load that is at times
not the main thread: a worker waiting on its LLM's socket takes it. CPython then only flags the
signal for the main thread, which raises ``KeyboardInterrupt`` when it next runs Python code; a
main thread asleep in one long wait for an event that never comes (a provider that does not
answer) would sleep through the Ctrl-C until the run's deadline."""


def _next_event(events: EventSubscription, deadline: float) -> AgentEvent | None:
    """The next event (None once the team has stopped), waited for in slices of at most
    ``_SIGNAL_CHECK_S`` so that a signal another thread took is acted on within one;
    ``TimeoutError`` once ``deadline`` (a ``perf_counter`` time) has passed."""
    while True:
        left = deadline - time.perf_counter()
        try:
            return events.get(timeout=max(0.0, min(left, _SIGNAL_CHECK_S)))
        except TimeoutError:
            if left <= _SIGNAL_CHECK_S:
                raise


def _finished_already(args: argparse.Namespace, team: AgentTeam, session: Session,
                      view: EventView) -> int:
    """Resuming a session whose last run finished shows how it ended (as a workflow engine
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

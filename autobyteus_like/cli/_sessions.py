"""The command line's sessions: where the store is, the session side of ``run
--session`` (opening it, telling when only people are left), ``sessions list | show | rm``,
and ``approve`` / ``deny`` of a call that waits for a person in a stopped session.

The store is, in order: ``--store URL``; the ``store:`` of ``--team TEAM.yaml`` (relative to
its folder) or ``TEAM.sessions.db`` beside it; ``$AUTOBYTEUS_LIKE_STORE``; the one
``*.sessions.db`` in the current folder.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from autobyteus_like.agent._working_memory import working_set_record
from autobyteus_like.errors import UsageError
from autobyteus_like.events import (
    AgentEvent,
    AgentStatus,
    AgentStatusChanged,
    ToolResultReceived,
    ToolStarted,
)

if TYPE_CHECKING:
    from autobyteus_like.store import Session, SessionStore
    from autobyteus_like.team import TeamConfig

__all__ = ["WaitingForPeople", "add_session_commands", "add_session_options", "open_cli_store",
           "open_run_session", "print_waiting", "store_folder_refused", "team_store_location"]

STORE_VARIABLE = "AUTOBYTEUS_LIKE_STORE"


def team_store_location(team_file: str | Path, store: str | None) -> str:
    """Where a team's sessions are kept: its ``store:`` (a URL, or a path relative to the
    team file's folder) or ``<team>.sessions.db`` beside it."""
    path = Path(team_file)
    if store is None:
        return str(path.with_name(f"{path.stem}.sessions.db"))
    if store.startswith(("postgresql://", "postgres://", "sqlite:///")):
        return store
    return str(path.parent / store)


def store_folder_refused(location: str) -> None:
    """``UsageError`` when a store's path names a folder (a store is a file or a URL)."""
    if Path(location.removeprefix("sqlite:///")).is_dir():
        raise UsageError(f"--store {location}: a folder, not a session store; give a SQLite "
                         "file's path (made if missing) or a postgresql:// URL")


def _location(args: argparse.Namespace) -> str:
    if getattr(args, "store", None):
        return str(args.store)
    if getattr(args, "team", None):
        from autobyteus_like.team._yaml_source import load_yaml

        data = load_yaml(args.team)
        store = data.get("store") if isinstance(data, dict) else None
        if store is not None and not isinstance(store, str):
            raise UsageError(f"{args.team}: store: expected a path or URL")
        return team_store_location(args.team, store)
    if os.environ.get(STORE_VARIABLE):
        return os.environ[STORE_VARIABLE]
    found = sorted(Path.cwd().glob("*.sessions.db"))
    if len(found) == 1:
        return str(found[0])
    which = "several *.sessions.db here" if found else "no *.sessions.db here"
    raise UsageError(f"which session store? {which}; pass --store PATH_OR_URL or "
                     "--team TEAM.yaml")


def open_cli_store(args: argparse.Namespace, *, must_exist: bool = True) -> SessionStore:
    """The store the arguments name (``UsageError`` if a SQLite file is not there)."""
    from autobyteus_like.store import open_store

    location = _location(args)
    is_url = location.startswith(("postgresql://", "postgres://"))
    file = location.removeprefix("sqlite:///")
    if must_exist and not is_url and not Path(file).is_file():
        raise UsageError(f"no session store at {file}")
    return open_store(location)


_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_FIELD_CONTROLS = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def _escaped(text: str, controls: re.Pattern[str]) -> str:
    text = controls.sub(lambda match: f"\\x{ord(match.group()):02x}", text)
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _say(text: str, file: TextIO | None = None) -> None:
    """Print text a model, a tool or a user wrote: control characters (terminal escape
    sequences among them) and undecodable characters are shown escaped, never sent to the
    terminal as they are; lines and tabs stay."""
    print(_escaped(text, _CONTROLS), file=file or sys.stdout)


class WaitingForPeople:
    """Follows a run's events to tell when everything left waits for a person: some call
    waits for approval, no member thinks and no tool runs."""

    _QUIET = frozenset({AgentStatus.IDLE, AgentStatus.AWAITING_APPROVAL})

    def __init__(self) -> None:
        self.statuses: dict[str, AgentStatus] = {}
        self.running: set[tuple[str, str]] = set()

    def only_people_left(self, event: AgentEvent) -> bool:
        if isinstance(event, AgentStatusChanged):
            self.statuses[event.agent] = event.status
        elif isinstance(event, ToolStarted):
            self.running.add((event.agent, event.invocation.id))
        elif isinstance(event, ToolResultReceived):
            self.running.discard((event.agent, event.result.invocation_id))
        statuses = set(self.statuses.values())
        return (AgentStatus.AWAITING_APPROVAL in statuses and statuses <= self._QUIET
                and not self.running)


def open_run_session(args: argparse.Namespace, config: TeamConfig) -> Session | None:
    """The session ``run --session`` names (None without it); a usage mistake is a
    ``UsageError``."""
    record = getattr(args, "record", None)
    if record is not None:  # a run without a session, recorded into a SQLite file
        if args.session is not None or args.store is not None:
            raise UsageError("--record FILE is a session of its own: give it, or --session "
                             "(with --store), not both")
        if args.message is None:
            raise UsageError("--record needs --message")
        args.session = time.strftime("run-%Y%m%d-%H%M%S", time.gmtime()) + f"-{os.getpid()}"
        args.store = record
        _say(f"recording the run as session {args.session} in {record}", file=sys.stderr)
    if args.session is None:
        if args.message is None:
            raise UsageError("run needs --message (or --session NAME to resume a session)")
        if args.detach_on_approval:
            raise UsageError("--detach-on-approval needs --session NAME (where to wait)")
        return None
    from autobyteus_like.store import Session

    location = args.store or team_store_location(args.team, config.store)
    store_folder_refused(location)
    session = Session(args.session, location, durability="power" if args.fsync else "process")
    if args.message is None and session.store.session(args.session) is None:
        session.close()
        raise UsageError(f"no session named {args.session!r} in {location}; pass --message "
                         "to start it")
    return session


def _field(text: str) -> str:
    """A name in a tab-separated line: newlines and tabs escaped too."""
    return _escaped(text, _FIELD_CONTROLS)


def _when(ms: int) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(ms / 1000))


def _list(args: argparse.Namespace) -> int:
    store = open_cli_store(args)
    try:
        sessions = store.sessions()
        if not sessions:
            _say("no sessions")
        for info in sessions:
            holder = store.is_held(info.name)
            state = f"running in {holder}" if holder else store.standing(info.name)
            _say(f"{_field(info.name)}\tteam {_field(info.team)}\t{state}\tupdated "
                 f"{_when(info.updated_ms)}")
    finally:
        store.close()
    return 0


def _session_or_error(store: SessionStore, name: str) -> None:
    if store.session(name) is None:
        known = ", ".join(info.name for info in store.sessions()) or "none"
        raise UsageError(f"no session named {name!r} (sessions: {known})")


def _stopped_session(store: SessionStore, name: str, otherwise: str) -> None:
    """``UsageError`` unless session ``name`` exists and no live process holds it."""
    _session_or_error(store, name)
    holder = store.is_held(name)
    if holder:
        raise UsageError(f"session {name!r} is running in {holder}; {otherwise}")


def _show(args: argparse.Namespace) -> int:
    store = open_cli_store(args)
    try:
        _session_or_error(store, args.name)
        info = store.session(args.name)
        assert info is not None
        _say(f"session {info.name} (team {info.team}): {store.standing(info.name)}")
        others = sorted(other.name for other in store.sessions()  # a team's conversations
                        if other.name.startswith(f"{info.name}@"))
        if others:
            _say("conversations (each a session): " + ", ".join(map(_field, others)))
        for agent in store.agents(args.name):
            _say(f"\n== {agent} ==")
            for message in store.history(args.name, agent, every_epoch=True):
                _print_message(message.role, message.content, message.tool_calls,
                               message.tool_results)
            for call in store.calls(args.name, agent):
                outcome = "" if call.result is None else f" -> {_result_text(call.result)}"
                _say(f"  call {call.invocation_id} {call.name}: {call.state.value}{outcome}")
            _print_working_set(store.usage(args.name, working_set_record(agent)))
        mail = store.mail(args.name)
        if mail:
            _say("\n== messages between members ==")
        for item in mail:
            _say(f"  {item.mail_id} {item.sender or 'user'} -> {item.recipient}: "
                  f"{item.state.value}")
    finally:
        store.close()
    return 0


def _print_working_set(saved: dict[str, Any] | None) -> None:
    """The agent's working set (memory.advise), if it has one."""
    for kind in ("hot", "cold"):
        for entry in (saved or {}).get(kind, []):
            _say(f"  working set: {kind} {entry.get('path')} ({entry.get('why')})")


def _print_message(role: str, content: str, calls: list[dict[str, Any]],
                   results: list[dict[str, Any]]) -> None:
    _say(f"[{role}] {content}")
    for call in calls:
        _say(f"  calls {call.get('name')}({call.get('arguments')}) id={call.get('id')}")
    for result in results:
        _say(f"  result {result.get('invocation_id')}: {_result_text(result)}")


def _result_text(result: dict[str, Any], limit: int = 200) -> str:
    if result.get("status") == "success":
        text = repr(result.get("content"))
    else:
        error = result.get("error") or {}
        text = f"{error.get('code')}: {error.get('message')}"
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _remove(args: argparse.Namespace) -> int:
    store = open_cli_store(args)
    try:
        _stopped_session(store, args.name, "stop it first")
        store.delete(args.name)
        _say(f"removed session {args.name}")
    finally:
        store.close()
    return 0


def _decide(args: argparse.Namespace) -> int:
    from autobyteus_like.errors import CallAlreadyDecidedError
    from autobyteus_like.store import CallState
    from autobyteus_like.tools._invocation import ToolInvocation, ToolResult

    store = open_cli_store(args)
    try:
        _stopped_session(store, args.name, "decide there")
        call = store.find_call(args.name, args.call_id)
        if call is not None and call.state in (CallState.APPROVED, CallState.DENIED):
            raise CallAlreadyDecidedError(args.name, call.invocation_id, call.state.value)
        if call is not None and call.state is CallState.INTERRUPTED and call.result is not None \
                and call.result.get("started") is False:  # stopped while it waited
            raise UsageError(f"session {args.name!r}: the run was stopped while call "
                             f"{args.call_id!r} waited, so it can no longer be approved or "
                             "denied (it never ran)")
        if call is None or call.state is not CallState.WAITING_APPROVAL:
            waiting = ", ".join(f"{c.invocation_id} ({c.agent}: {c.name})"
                                for c in store.waiting_calls(args.name)) or "none"
            why = "no call" if call is None else f"call ({call.state.value}), not waiting:"
            raise UsageError(f"session {args.name!r} has {why} {args.call_id!r}; waiting for "
                             f"approval: {waiting}")
        # one compare-and-set: the holder and the call's state are checked, the decision and
        # the session's new status written, in one transaction. Of two decisions racing one
        # wins, the other is told how the call was decided (CallAlreadyDecidedError, exit 2);
        # a run taking the session waits for it, or it is refused (SessionInUseError)
        with store.transaction():
            if args.approve:
                store.decide_call(args.name, call.invocation_id, CallState.APPROVED)
                verdict = "approved"
            else:
                invocation = ToolInvocation(id=call.invocation_id, name=call.name,
                                            arguments=call.arguments)
                result = ToolResult.denied(invocation, args.reason)
                store.decide_call(args.name, call.invocation_id, CallState.DENIED,
                                  result.model_dump(mode="json"))
                verdict = "denied"
            store.set_status(args.name, store.standing(args.name))
        where = f" --store {args.store}" if args.store else ""
        _say(f"{verdict} {call.name} ({call.invocation_id}) for {call.agent}; go on with "
             f"`autobyteus-like run {args.team or 'TEAM.yaml'} --session {args.name}{where} "
             "--tools ...` (the --tools the run used)")
    finally:
        store.close()
    return 0


def add_session_options(parser: argparse.ArgumentParser, kept: str) -> None:
    """``--session NAME`` and ``--store PATH_OR_URL`` for a command that keeps ``kept`` in a
    session (``run``, ``serve``)."""
    parser.add_argument("--session", metavar="NAME",
                        help=f"keep {kept} as session NAME (started, or continued)")
    parser.add_argument("--store", metavar="PATH_OR_URL",
                        help="the session store: a SQLite file or a postgresql:// URL (default: "
                             "the team's store:, or TEAM.sessions.db beside the YAML file)")


def _store_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--store", metavar="PATH_OR_URL",
                        help="the session store (a SQLite file or a postgresql:// URL)")
    parser.add_argument("--team", metavar="TEAM.yaml",
                        help="use the store of this team (its store: or TEAM.sessions.db)")


def add_session_commands(commands: Any) -> None:
    """Add ``sessions``, ``approve`` and ``deny`` to the CLI's subcommands."""
    sessions = commands.add_parser("sessions", help="list, show or remove sessions",
                                   description="List, show or remove sessions.")
    actions = sessions.add_subparsers(dest="action", required=True, metavar="ACTION")
    listing = actions.add_parser("list", help="every session and where it stands")
    _store_options(listing)
    listing.set_defaults(handler=_list)
    show = actions.add_parser("show", help="a session's transcript, tool results included")
    show.add_argument("name")
    _store_options(show)
    show.set_defaults(handler=_show)
    remove = actions.add_parser("rm", help="remove a session and everything in it")
    remove.add_argument("name")
    _store_options(remove)
    remove.set_defaults(handler=_remove)
    from autobyteus_like.cli._session_tests import add_recording_commands

    add_recording_commands(actions, _store_options, open_cli_store)
    for verdict in ("approve", "deny"):
        parser = commands.add_parser(
            verdict, help=f"{verdict} a call that waits for a person in a stopped session",
            description=f"{verdict.capitalize()} a call that waits for a person in a stopped "
                        "session; the next run of the session goes on from the decision.")
        parser.add_argument("name", help="the session")
        parser.add_argument("call_id", help="the call's id (see `sessions show NAME`)")
        if verdict == "deny":
            parser.add_argument("--reason", default="denied by the user",
                                help="what the LLM is told")
        _store_options(parser)
        parser.set_defaults(handler=_decide, approve=verdict == "approve")


def print_waiting(store: SessionStore, name: str, store_flag: str) -> None:
    """Tell the user which calls wait for them and how to decide."""
    for call in store.waiting_calls(name):
        _say(f"waiting for approval: {call.agent} {call.name} {call.invocation_id}; decide with "
              f"`autobyteus-like approve {name} {call.invocation_id}{store_flag}` (or deny)",
              file=sys.stderr)

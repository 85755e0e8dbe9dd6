"""``sessions export | fork | diff``: a session made a test, forked at a turn, or compared with
another (docs/testing.md)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from autobyteus_like.store import SessionStore

__all__ = ["add_recording_commands"]


def _export(args: argparse.Namespace) -> int:
    from autobyteus_like.testing._export import export_session

    store = args.open_store(args)
    try:
        team_data = None
        if args.team:
            from autobyteus_like.team._yaml_source import load_yaml

            team_data = load_yaml(args.team)
        module = export_session(store, args.name, args.test, live_tools=args.live_tools,
                                check_requests=args.check_requests, team_data=team_data)
    finally:
        store.close()
    print(f"wrote {module} (run it with: pytest {module})")
    return 0


def _fork(args: argparse.Namespace) -> int:
    from autobyteus_like.store._session import Session

    store = args.open_store(args)
    try:
        fork = Session(args.name, store).fork(args.at, args.new, member=args.member)
    finally:
        store.close()
    print(f"forked {args.name} at turn {args.at} as {fork.name} (go on with: autobyteus-like "
          f"run ... --session {fork.name})")
    return 0


def _diff(args: argparse.Namespace) -> int:
    from autobyteus_like.testing._session_diff import print_diff

    store = args.open_store(args)
    try:
        return print_diff(store, args.first, args.second)
    finally:
        store.close()


def add_recording_commands(actions: Any,
                           store_options: Callable[[argparse.ArgumentParser], None],
                           open_store: Callable[[argparse.Namespace], SessionStore]) -> None:
    """Add ``export``, ``fork`` and ``diff`` to ``sessions`` (``open_store``: the store the
    arguments name)."""
    export = actions.add_parser(
        "export", help="write a session as an offline pytest test",
        description="Write session NAME as a self-contained offline test in DIR: a team file "
                    "whose members answer with the recorded replies, the tool results as "
                    "recorded, and a pytest module that replays it.")
    export.add_argument("name")
    export.add_argument("--test", required=True, metavar="DIR", help="the folder to write")
    export.add_argument("--live-tools", action="store_true",
                        help="re-run the builtin tools instead of their recorded results")
    export.add_argument("--check-requests", action="store_true",
                        help="the test also compares what the framework sent each time")
    store_options(export)
    export.set_defaults(handler=_export, open_store=open_store)
    fork = actions.add_parser(
        "fork", help="a new session holding a session up to a turn",
        description="Make a new session holding session NAME's conversation, calls, mail and "
                    "recordings up to turn TURN (the team's user messages counted from 1; "
                    "--member M: M's own turns); NAME is untouched, even while it runs.")
    fork.add_argument("name")
    fork.add_argument("--at", required=True, type=int, metavar="TURN")
    fork.add_argument("--as", dest="new", metavar="NEW", help="the fork's name "
                      "(default NAME.forkTURN)")
    fork.add_argument("--member", metavar="M", help="count M's own turns")
    store_options(fork)
    fork.set_defaults(handler=_fork, open_store=open_store)
    diff = actions.add_parser(
        "diff", help="where two sessions part ways",
        description="Show where sessions A and B part ways: the first differing request or "
                    "response per member, then the calls and answers side by side.")
    diff.add_argument("first", metavar="A")
    diff.add_argument("second", metavar="B")
    store_options(diff)
    diff.set_defaults(handler=_diff, open_store=open_store)

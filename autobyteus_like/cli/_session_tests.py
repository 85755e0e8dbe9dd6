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

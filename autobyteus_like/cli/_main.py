"""The command line: ``autobyteus-like run TEAM.yaml --message ...``, ``validate``,
``serve-mcp``, ``serve``, and for sessions ``sessions``, ``approve`` and ``deny``. This
module is the entry point (the parser, one-line errors, exit codes); each command lives in its
own module: ``cli_run``, ``cli_validate``, ``cli_serve``, ``cli_sessions``.

Exit codes: 0 the run finished (or the config is valid); 1 the run failed or timed out; 2 the
command, the config, the tools or the session store could not be used; 3 the run stopped to
wait for a person (``--detach-on-approval``).
"""

from __future__ import annotations

import argparse
import logging
import sys
import traceback
import warnings
from collections.abc import Sequence
from typing import NoReturn, TextIO

from autobyteus_like import __version__
from autobyteus_like.cli._run import add_run_command
from autobyteus_like.cli._serve import add_serve_commands
from autobyteus_like.cli._serve_a2a import add_serve_a2a_command
from autobyteus_like.cli._sessions import add_session_commands
from autobyteus_like.cli._tools import load_tools
from autobyteus_like.cli._validate import add_validate_command
from autobyteus_like.errors import (
    AutobyteusLikeError,
    ConfigError,
    MissingExtraError,
    StoreError,
    UsageError,
)
from autobyteus_like.evals._command import add_eval_command
from autobyteus_like.proxy._command import add_proxy_command

__all__ = ["load_tools", "main"]


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
    add_run_command(commands)
    add_validate_command(commands)
    add_serve_commands(commands)
    add_serve_a2a_command(commands)
    add_session_commands(commands)
    add_eval_command(commands)
    add_proxy_command(commands)
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
    except KeyboardInterrupt as exc:  # Ctrl-C; or SIGTERM while a served team starts
        print(f"interrupted{f' by {exc}' if str(exc) else ''}", file=sys.stderr)
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

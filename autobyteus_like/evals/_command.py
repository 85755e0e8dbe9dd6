"""The ``eval-formats`` command: which tool format does this model handle best?

``autobyteus-like eval-formats --llm SPEC [--formats ...] [--suite builtin|FILE]
[--repeat N] [--concurrency N] [--json FILE] [--plot FILE.png]``. SPEC is a member's ``llm:``
as YAML (``'{provider: llamacpp, model: smollm2, base_url: ...}'``) or ``TEAM.yaml:MEMBER``.
Progress per format while it runs; the table at the end (Ctrl-C: the table so far, exit 130);
the verdict stored in the ``model_formats`` table (the team's or ``--store``'s store, else the
cache file), where ``tool_format: auto`` starts from it."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from autobyteus_like.errors import ConfigError, UsageError
from autobyteus_like.formats import NATIVE, TEXT_FORMATS, ToolCallFormat

if TYPE_CHECKING:  # the rest loads when the command runs: registering it costs nothing
    from autobyteus_like.evals._report import EvalReport
    from autobyteus_like.evals._suite import EvalSuite, EvalTask
    from autobyteus_like.evals._task_run import LLMFactory
    from autobyteus_like.llm._spec import LLMSpec

__all__ = ["add_eval_command", "llm_spec"]


def add_eval_command(commands: Any) -> None:
    """``eval-formats --llm SPEC ...``."""
    command = commands.add_parser(
        "eval-formats", help="measure which tool format a model handles best",
        description="Run a suite of tool-calling tasks against a model once per tool format "
                    "and report, per format, task success, missed / extra / malformed calls, "
                    "tokens and latency; store the verdict for tool_format: auto.")
    command.add_argument("--llm", required=True, metavar="SPEC",
                         help="the model: a member's llm as YAML, or TEAM.yaml:MEMBER")
    command.add_argument("--formats", metavar="F,F", action="append",
                         help="formats to compare (default all: "
                              f"{','.join((NATIVE, *(f.value for f in TEXT_FORMATS)))})")
    command.add_argument("--suite", default="builtin", metavar="builtin|FILE",
                         help="the tasks: the built-in suite or a YAML file of one's own")
    command.add_argument("--tasks", metavar="ID,ID", action="append",
                         help="run only these tasks of the suite")
    command.add_argument("--repeat", type=int, default=1, metavar="N",
                         help="run each task N times per format (the spread is shown)")
    command.add_argument("--concurrency", type=int, default=1, metavar="N",
                         help="runs at a time (as many as the server serves at once)")
    command.add_argument("--timeout", type=float, default=120.0, metavar="S",
                         help="seconds one run may take")
    command.add_argument("--max-iterations", type=int, default=6, metavar="N",
                         help="LLM round trips one run may take (a model that keeps calling "
                              "ends there, failed)")
    command.add_argument("--manifest", choices=["full", "compact"], default="full",
                         help="how text formats teach the tools (compact: one line per tool "
                              "and a shown exchange, for small models)")
    command.add_argument("--json", type=Path, metavar="FILE", help="write every figure here")
    command.add_argument("--plot", type=Path, metavar="FILE.png",
                         help="a bar chart of success per format (the plot extra)")
    command.add_argument("--store", metavar="PATH_OR_URL",
                         help="store the verdict in this session store (default: the cache "
                              "file under $AUTOBYTEUS_LIKE_CACHE)")
    command.add_argument("--no-store", action="store_true", help="do not store the verdict")
    command.set_defaults(handler=_eval_formats)


def llm_spec(text: str) -> LLMSpec:
    """The model SPEC names (``UsageError`` saying what is wrong with it)."""
    import yaml
    from pydantic import ValidationError

    from autobyteus_like.llm._spec import LLMSpec

    team, _, member = text.rpartition(":")
    if team and Path(team).is_file() and member and "{" not in text:
        try:
            data = yaml.safe_load(Path(team).read_text(encoding="utf-8"))
        except (OSError, yaml.YAMLError) as exc:
            raise UsageError(f"--llm {text!r}: cannot read {team}: {exc}") from None
        members = {m.get("name"): m for m in (data or {}).get("members", [])
                   if isinstance(m, dict)}
        if member not in members:
            raise UsageError(f"--llm {text!r}: {team} has no member {member!r} (members: "
                             f"{', '.join(str(m) for m in members)})")
        value = members[member].get("llm")
    else:
        try:
            value = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            raise UsageError(f"--llm {text!r}: not YAML: {exc}") from None
    try:
        return LLMSpec.model_validate(value)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'llm'}: {e['msg']}"
                             for e in exc.errors())
        raise UsageError(f"--llm {text!r}: {problems}") from None


def _listed(values: list[str] | None) -> list[str]:
    return [item.strip() for value in values or [] for item in value.split(",") if item.strip()]


def _formats(values: list[str] | None) -> list[str]:
    from autobyteus_like.evals._eval import ALL_FORMATS

    names = _listed(values) or list(ALL_FORMATS)
    try:
        return list(dict.fromkeys(ToolCallFormat.parse(name).value for name in names))
    except ValueError as exc:
        raise UsageError(f"--formats: {exc}") from None


def _eval_formats(args: argparse.Namespace) -> int:
    from rich.console import Console

    from autobyteus_like.evals._eval import FormatEval
    from autobyteus_like.evals._show import EvalProgress, plot, table
    from autobyteus_like.evals._suite import load_suite

    if args.repeat < 1 or args.concurrency < 1 or args.max_iterations < 1:
        raise UsageError("--repeat, --concurrency and --max-iterations must be at least 1")
    spec = llm_spec(args.llm)
    if spec.fallback:
        raise UsageError("--llm: a chain of fallback models has no one format: name one model")
    suite = load_suite(args.suite)
    if args.tasks:
        suite = suite.only(_listed(args.tasks))
    if args.plot is not None:
        from autobyteus_like._extras import require_extra

        require_extra("plot", "--plot")

    def make_llm(tool_format: str, task: EvalTask) -> Any:
        return spec.build()

    factory: LLMFactory = make_llm
    model = f"{spec.provider} {spec.model or '(scripted)'}" + (
        f" at {spec.base_url}" if spec.base_url else "")
    console = Console(stderr=True, highlight=False)
    evaluation = FormatEval(factory, suite, model=model, formats=_formats(args.formats),
                            repeat=args.repeat, concurrency=args.concurrency,
                            timeout_s=args.timeout, source=args.suite,
                            max_iterations=args.max_iterations, manifest=args.manifest)
    with EvalProgress(evaluation.report, console) as progress:
        evaluation.on_outcome = progress.update
        report = evaluation.run()
    if not args.no_store:
        _store(report, factory, suite, args.store)
    Console(highlight=False, width=None if sys.stdout.isatty() else 120).print(table(report))
    best = report.verdict()
    print(f"verdict: {best.format if best else 'none'}" + (
        f" (stored in {report.stored})" if report.stored else
        f" (not stored: {report.not_stored})" if report.not_stored else ""))
    errors = sum(s.server_errors for s in report.scores())
    if errors:
        print(f"server errors: {errors} runs failed on the server (not counted as the "
              f"model's failures); the first: "
              f"{next(o.server_error for o in report.outcomes if o.server_error)}",
              file=sys.stderr)
    if args.json is not None:
        _write(args.json, json.dumps(report.as_json(), indent=2, ensure_ascii=False))
    if args.plot is not None:
        plot(report, args.plot)
    if report.interrupted:
        print("interrupted: the table shows the runs that finished", file=sys.stderr)
        return 130
    return 0


def _store(report: EvalReport, factory: LLMFactory, suite: EvalSuite,
           store: str | None) -> None:
    from autobyteus_like.evals._eval import store_verdict
    from autobyteus_like.store._model_formats import ModelFormats

    if store is None:
        store_verdict(report, factory, suite, ModelFormats.cached())
        return
    from autobyteus_like.store import open_store

    opened = open_store(store)
    try:
        store_verdict(report, factory, suite, ModelFormats.in_store(opened))
    finally:
        opened.close()


def _write(path: Path, text: str) -> None:
    try:
        path.write_text(text + "\n", encoding="utf-8")
    except OSError as exc:
        raise ConfigError(str(path), [f"cannot write: {exc.strerror or exc}"]) from None

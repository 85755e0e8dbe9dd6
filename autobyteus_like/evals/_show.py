"""How the eval is shown: progress while it runs (runs done / planned, per format), the table
of figures per format (rich), and a bar chart of success per format with its spread
(matplotlib, the ``plot`` extra)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn
from rich.table import Table

from autobyteus_like._extras import require_extra
from autobyteus_like.evals._report import EvalReport, FormatScore
from autobyteus_like.evals._task_run import RunOutcome

__all__ = ["EvalProgress", "plot", "table"]


class EvalProgress:
    """A progress bar per format (on stderr); ``update`` is an ``on_outcome`` callback."""

    def __init__(self, report: EvalReport, console: Console) -> None:
        self._progress = Progress(TextColumn("{task.description:>10}"), BarColumn(),
                                  MofNCompleteColumn(), TextColumn("{task.fields[ok]} ok"),
                                  console=console, transient=True)
        per_format = len(report.tasks) * report.repeats
        self._tasks: dict[str, TaskID] = {
            name: self._progress.add_task(name, total=per_format, ok=0)
            for name in report.formats}
        self._ok: dict[str, int] = dict.fromkeys(report.formats, 0)

    def __enter__(self) -> EvalProgress:
        self._progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._progress.stop()

    def update(self, outcome: RunOutcome, report: EvalReport) -> None:
        self._ok[outcome.format] += outcome.success
        self._progress.update(self._tasks[outcome.format], advance=1,
                              ok=self._ok[outcome.format])


def _number(value: float | None, pattern: str = "{:.0f}") -> str:
    return "-" if value is None else pattern.format(value)


def table(report: EvalReport) -> Table:
    """The figures per format; the verdict's row in bold."""
    best = report.verdict()
    done = f"{len(report.outcomes)} of {report.total} runs"
    title = (f"eval-formats: {report.model} ({done}"
             f"{', interrupted' if report.interrupted else ''})")
    grid = Table(title=title, title_justify="left",
                 caption="success: tasks done right (spread over repeats); missed / extra / "
                         "malformed calls; prose: answered without the calls needed; manifest "
                         "and reply: tokens; secs: mean per task (± its spread over repeats)",
                 caption_justify="left")
    for header in ("format", "success", "±", "missed", "extra", "malformed", "prose",
                   "bad args", "manifest", "reply", "secs", "server err"):
        grid.add_column(header, justify="left" if header == "format" else "right")
    for score in report.scores():
        success = (f"{score.successes}/{score.runs} ({score.success:.0%})"
                   if score.success is not None else "-")
        grid.add_row(score.format, success, f"{score.spread:.0%}", str(score.missed),
                     str(score.extra), str(score.malformed), str(score.prose_only),
                     str(score.invalid_args), _number(score.manifest_tokens),
                     _number(score.reply_tokens), _latency(score),
                     str(score.server_errors),
                     style="bold" if best is not None and score.format == best.format else None)
    return grid


def _latency(score: FormatScore) -> str:
    shown = _number(score.latency_s, "{:.2f}")
    return f"{shown}±{score.latency_spread_s:.2f}" if len(score.latency_per_repeat) > 1 else shown


def plot(report: EvalReport, path: Path) -> None:
    """A bar chart of success per format with its spread over the repeats, as a PNG."""
    require_extra("plot", "--plot")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as pyplot

    scores = report.scores()
    figure: Any = pyplot.figure(figsize=(1.2 * len(scores) + 2, 4))
    try:
        axes = figure.add_subplot()
        axes.bar([s.format for s in scores], [100 * (s.success or 0.0) for s in scores],
                 yerr=[100 * s.spread for s in scores], capsize=4, color="#4C78A8")
        axes.set_ylim(0, 105)
        axes.set_ylabel("tasks succeeded (%)")
        axes.set_title(f"{report.model}: {len(report.tasks)} tasks x {report.repeats} "
                       f"repeat(s)")
        figure.tight_layout()
        figure.savefig(path, dpi=100)
    finally:
        pyplot.close(figure)

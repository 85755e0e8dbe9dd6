"""``run_eval``: every task of a suite, in each format, ``repeat`` times, on fresh LLMs,
``concurrency`` runs at a time; interruptible (``stop()`` from another thread, or Ctrl-C in
the caller's thread: the runs under way are stopped and the report holds what finished). The
verdict is stored in the ``model_formats`` table, where ``tool_format: auto`` starts from it."""

from __future__ import annotations

import concurrent.futures
import threading
from collections.abc import Callable, Sequence

from autobyteus_like.agent._format_memory import model_key
from autobyteus_like.evals._report import EvalReport
from autobyteus_like.evals._suite import EvalSuite, EvalTask
from autobyteus_like.evals._task_run import LiveAgents, LLMFactory, RunOutcome, run_task
from autobyteus_like.formats import NATIVE, TEXT_FORMATS
from autobyteus_like.store._model_formats import ModelFormats

__all__ = ["ALL_FORMATS", "FormatEval", "store_verdict"]

ALL_FORMATS: tuple[str, ...] = (NATIVE, *(f.value for f in TEXT_FORMATS))
"""Native and each of the six text formats."""


class FormatEval:
    """One eval: ``run()`` (blocking) gives the report; ``stop()`` ends it early."""

    def __init__(self, make_llm: LLMFactory, suite: EvalSuite, *, model: str,
                 formats: Sequence[str] = ALL_FORMATS, repeat: int = 1,
                 concurrency: int = 1, timeout_s: float = 120.0, source: str = "builtin",
                 max_iterations: int = 6, manifest: str = "full",
                 on_outcome: Callable[[RunOutcome, EvalReport], None] | None = None) -> None:
        if repeat < 1 or concurrency < 1:
            raise ValueError("repeat and concurrency must be at least 1")
        self.make_llm = make_llm
        self.suite = suite
        self.tools = suite.tool_objects(source)
        self.report = EvalReport(model, list(formats), [t.id for t in suite.tasks], repeat)
        self.concurrency = concurrency
        self.timeout_s = timeout_s
        self.max_iterations = max_iterations
        self.manifest = manifest
        self.on_outcome = on_outcome
        self._live = LiveAgents()
        self._lock = threading.Lock()

    def stop(self) -> None:
        """End the eval: no run starts any more, the runs under way are stopped."""
        self.report.interrupted = True
        self._live.stop_all()

    def run(self) -> EvalReport:
        """Every run (or those finished before ``stop()`` or Ctrl-C); the report."""
        plan = [(tool_format, task, repeat) for repeat in range(self.report.repeats)
                for task in self.suite.tasks for tool_format in self.report.formats]
        pool = concurrent.futures.ThreadPoolExecutor(self.concurrency,
                                                     thread_name_prefix="eval-formats")
        try:
            futures = [pool.submit(self._one, *step) for step in plan]
            for future in concurrent.futures.as_completed(futures):
                future.result()
        except KeyboardInterrupt:
            self.stop()
        finally:
            if self._live.stopping.is_set():
                self.report.interrupted = True
            pool.shutdown(wait=True, cancel_futures=True)
        return self.report

    def _one(self, tool_format: str, task: EvalTask, repeat: int) -> None:
        if self._live.stopping.is_set():
            return
        outcome = run_task(self.make_llm(tool_format, task), self.suite, self.tools, task,
                           tool_format, repeat, timeout_s=self.timeout_s, live=self._live,
                           max_iterations=self.max_iterations, manifest=self.manifest)
        if outcome is None:
            return
        with self._lock:
            self.report.outcomes.append(outcome)
            if self.on_outcome is not None:
                self.on_outcome(outcome, self.report)


def store_verdict(report: EvalReport, make_llm: LLMFactory, suite: EvalSuite,
                  formats: ModelFormats) -> None:
    """Store the report's verdict for its model (``report.stored`` says where, or
    ``report.not_stored`` why not)."""
    best = report.verdict()
    key = model_key(make_llm(best.format if best else NATIVE, suite.tasks[0]))
    if report.interrupted:
        report.not_stored = "the eval was interrupted"
    elif best is None:
        report.not_stored = "no format succeeded at any task"
    elif key is None:
        report.not_stored = "a scripted model (or a chain of fallback models) has no entry"
    else:
        formats.judge(key, best.format, {s.format: s.as_json() for s in report.scores()})
        report.stored = formats.where

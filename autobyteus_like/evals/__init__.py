"""Which tool format does a model handle best? ``eval-formats`` runs a suite of tool-calling
tasks against a model once per format and stores the verdict where ``tool_format: auto``
starts from it (docs/models.md)."""

from __future__ import annotations

from autobyteus_like.evals._eval import ALL_FORMATS, FormatEval, store_verdict
from autobyteus_like.evals._report import EvalReport, FormatScore
from autobyteus_like.evals._suite import (
    BUILTIN,
    CallExpectation,
    EvalSuite,
    EvalTask,
    load_suite,
    matches,
)
from autobyteus_like.evals._task_run import RunOutcome

__all__ = ["ALL_FORMATS", "BUILTIN", "CallExpectation", "EvalReport", "EvalSuite", "EvalTask",
           "FormatEval", "FormatScore", "RunOutcome", "load_suite", "matches", "store_verdict"]

"""Which tool format does a model handle best? ``eval-formats`` runs a suite of tool-calling
tasks against a model once per format and stores the verdict where ``tool_format: auto``
starts from it (docs/models.md).

The names below load when first used: the command line registers ``eval-formats`` without
them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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

def __getattr__(name: str) -> Any:
    if name in ("ALL_FORMATS", "FormatEval", "store_verdict"):
        from autobyteus_like.evals import _eval

        value = getattr(_eval, name)
    elif name in ("EvalReport", "FormatScore"):
        from autobyteus_like.evals import _report

        value = getattr(_report, name)
    elif name in ("BUILTIN", "CallExpectation", "EvalSuite", "EvalTask", "load_suite",
                  "matches"):
        from autobyteus_like.evals import _suite

        value = getattr(_suite, name)
    elif name == "RunOutcome":
        from autobyteus_like.evals import _task_run

        value = getattr(_task_run, name)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value

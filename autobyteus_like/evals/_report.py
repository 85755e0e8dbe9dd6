"""The eval's figures per format, over every task and repeat: task success (with its spread
over the repeats), calls missed / extra / malformed, answers in prose only, invalid
arguments, manifest and reply tokens, latency (with its spread over the repeats); server
errors apart. And the verdict: the
format with the highest success (ties: fewer faulty calls, then fewer reply tokens, then a
shorter manifest)."""

from __future__ import annotations

import statistics
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from autobyteus_like.evals._task_run import RunOutcome

__all__ = ["EvalReport", "FormatScore"]


def _mean(values: list[float]) -> float | None:
    return statistics.fmean(values) if values else None


@dataclass
class FormatScore:
    """One format's figures."""

    format: str
    runs: int = 0
    """Runs the model answered (server errors left out)."""
    successes: int = 0
    server_errors: int = 0
    missed: int = 0
    extra: int = 0
    malformed: int = 0
    prose_only: int = 0
    invalid_args: int = 0
    manifest_tokens: int | None = None
    reply_tokens: float | None = None
    latency_s: float | None = None
    per_repeat: list[float] = field(default_factory=list)
    """The success rate of each repeat (its spread is the spread shown)."""
    latency_per_repeat: list[float] = field(default_factory=list)
    """The mean latency of each repeat's runs, in seconds."""

    @property
    def success(self) -> float | None:
        return self.successes / self.runs if self.runs else None

    @property
    def spread(self) -> float:
        return statistics.pstdev(self.per_repeat) if len(self.per_repeat) > 1 else 0.0

    @property
    def latency_spread_s(self) -> float:
        """The spread of the mean latency over the repeats (0 with one repeat)."""
        if len(self.latency_per_repeat) < 2:
            return 0.0
        return statistics.pstdev(self.latency_per_repeat)

    def as_json(self) -> dict[str, Any]:
        return {"format": self.format, "runs": self.runs, "successes": self.successes,
                "success": self.success, "spread": self.spread,
                "per_repeat": self.per_repeat, "server_errors": self.server_errors,
                "missed": self.missed, "extra": self.extra, "malformed": self.malformed,
                "prose_only": self.prose_only, "invalid_args": self.invalid_args,
                "manifest_tokens": self.manifest_tokens, "reply_tokens": self.reply_tokens,
                "latency_s": self.latency_s, "latency_spread_s": self.latency_spread_s,
                "latency_per_repeat": self.latency_per_repeat}


@dataclass
class EvalReport:
    """Every run's outcome, and the figures per format, in the order the formats were given."""

    model: str
    formats: list[str]
    tasks: list[str]
    repeats: int
    outcomes: list[RunOutcome] = field(default_factory=list)
    interrupted: bool = False
    stored: str | None = None
    """Where the verdict was stored (None: not stored, and ``not_stored`` says why)."""
    not_stored: str | None = None

    @property
    def total(self) -> int:
        return len(self.formats) * len(self.tasks) * self.repeats

    def scores(self) -> list[FormatScore]:
        by_format: dict[str, list[RunOutcome]] = defaultdict(list)
        for outcome in self.outcomes:
            by_format[outcome.format].append(outcome)
        return [_score(name, by_format[name]) for name in self.formats]

    def verdict(self) -> FormatScore | None:
        """The best format (None: no format succeeded at anything)."""
        ranked = [s for s in self.scores() if s.successes]
        if not ranked:
            return None
        return max(ranked, key=lambda s: (
            s.success or 0.0, -(s.missed + s.extra + s.malformed + s.prose_only + s.invalid_args),
            -(s.reply_tokens or 0.0), -(s.manifest_tokens or 0)))

    def as_json(self) -> dict[str, Any]:
        best = self.verdict()
        return {"model": self.model, "formats": self.formats, "tasks": self.tasks,
                "repeats": self.repeats, "runs_done": len(self.outcomes),
                "runs_planned": self.total, "interrupted": self.interrupted,
                "verdict": best.format if best else None, "stored": self.stored,
                "not_stored": self.not_stored,
                "scores": [score.as_json() for score in self.scores()],
                "outcomes": [outcome.as_json() for outcome in self.outcomes]}


def _score(name: str, outcomes: list[RunOutcome]) -> FormatScore:
    score = FormatScore(name)
    answered = [o for o in outcomes if o.server_error is None]
    score.server_errors = len(outcomes) - len(answered)
    score.runs = len(answered)
    score.successes = sum(o.success for o in answered)
    for outcome in answered:
        score.missed += outcome.missed
        score.extra += outcome.extra
        score.malformed += outcome.malformed
        score.prose_only += outcome.prose_only
        score.invalid_args += outcome.invalid_args
    manifests = [o.manifest_tokens for o in outcomes]
    score.manifest_tokens = max(manifests) if manifests else None
    score.reply_tokens = _mean([float(o.reply_tokens) for o in answered
                                if o.reply_tokens is not None])
    score.latency_s = _mean([o.latency_s for o in answered])
    repeats: dict[int, list[RunOutcome]] = defaultdict(list)
    for outcome in answered:
        repeats[outcome.repeat].append(outcome)
    ordered = [done for _, done in sorted(repeats.items())]
    score.per_repeat = [sum(o.success for o in done) / len(done) for done in ordered]
    score.latency_per_repeat = [statistics.fmean(o.latency_s for o in done) for done in ordered]
    return score

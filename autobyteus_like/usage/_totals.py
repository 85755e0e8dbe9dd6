"""Usage totals: tokens, calls and cost summed over a turn, an agent's run, a team's run or a
session. ``Tally`` adds up (under its owner's lock); ``UsageTotals`` is the immutable snapshot
everyone else reads."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

__all__ = ["Tally", "UsageTotals"]


@dataclass(frozen=True, slots=True)
class UsageTotals:
    """Sums over some span of work. ``input_tokens`` counts everything the models read (cached
    included), ``output_tokens`` everything they wrote (reasoning included).

    ``cost_usd`` is None when any priced response had no known price (``unpriced`` names the
    ``provider/model`` of each) or did not report its usage: an unknown cost is never 0.

    ``unreported`` counts the responses that reported no token usage (a llama.cpp server
    streams none): the token figures are then only what was reported, a lower bound, and are
    shown as ``unknown`` (nothing reported) or ``at least N`` (``token_text``), never as exact.
    """

    input_tokens: int = 0
    output_tokens: int = 0
    cached_input_tokens: int = 0
    reasoning_tokens: int = 0
    llm_calls: int = 0
    tool_calls: int = 0
    cost_usd: Decimal | None = Decimal(0)
    unpriced: tuple[str, ...] = ()
    unreported: int = 0

    @property
    def tokens_known(self) -> bool:
        """Whether every response reported its usage (the token figures are exact)."""
        return self.unreported == 0

    def token_figure(self, reported: int) -> int | str:
        """A token figure as it is known: exact (an int), ``unknown`` (no response reported
        any) or ``at least N`` (some did not report theirs)."""
        if self.unreported == 0:
            return reported
        return "unknown" if reported == 0 else f"at least {reported}"

    @property
    def cost_text(self) -> str:
        """The cost as people read it: ``$0.0123`` or ``unknown``."""
        return "unknown" if self.cost_usd is None else f"${self.cost_usd:.4f}"

    def as_json(self) -> dict[str, Any]:
        """A JSON object; the cost is a decimal string or "unknown"; a token figure is a
        number when exact, else "unknown" or "at least N" (``unreported`` responses)."""
        figure = self.token_figure
        return {
            "input_tokens": figure(self.input_tokens),
            "output_tokens": figure(self.output_tokens),
            "cached_input_tokens": figure(self.cached_input_tokens),
            "reasoning_tokens": figure(self.reasoning_tokens), "llm_calls": self.llm_calls,
            "tool_calls": self.tool_calls,
            "cost_usd": "unknown" if self.cost_usd is None else str(self.cost_usd),
            "unpriced": list(self.unpriced), "unreported_responses": self.unreported,
        }


@dataclass(slots=True)
class Tally:
    """A running sum; not thread-safe on its own (its owner locks)."""

    input_tokens: int = 0
    output_tokens: int = 0
    cached_input_tokens: int = 0
    reasoning_tokens: int = 0
    llm_calls: int = 0
    tool_calls: int = 0
    cost_usd: Decimal = Decimal(0)
    unpriced: dict[str, None] = field(default_factory=dict)
    """``provider/model`` of responses without a known cost, in first-seen order."""
    unreported: int = 0

    def add_response(self, input_tokens: int, output_tokens: int, cached: int, reasoning: int,
                     cost: Decimal | None, model: str, reported: bool = True) -> None:
        self.unreported += not reported
        self.input_tokens += input_tokens
        self.output_tokens += output_tokens
        self.cached_input_tokens += cached
        self.reasoning_tokens += reasoning
        if cost is None:
            self.unpriced[model] = None
        else:
            self.cost_usd += cost

    def merge(self, other: Tally) -> None:
        """Add another tally's sums to this one."""
        self.input_tokens += other.input_tokens
        self.output_tokens += other.output_tokens
        self.cached_input_tokens += other.cached_input_tokens
        self.reasoning_tokens += other.reasoning_tokens
        self.llm_calls += other.llm_calls
        self.tool_calls += other.tool_calls
        self.cost_usd += other.cost_usd
        self.unpriced.update(other.unpriced)
        self.unreported += other.unreported

    def record(self) -> dict[str, Any]:
        """The sums as a JSON object (what a session stores; ``from_record`` reads
        it back exactly: the cost as a decimal string)."""
        return {"input_tokens": self.input_tokens, "output_tokens": self.output_tokens,
                "cached_input_tokens": self.cached_input_tokens,
                "reasoning_tokens": self.reasoning_tokens, "llm_calls": self.llm_calls,
                "tool_calls": self.tool_calls, "cost_usd": str(self.cost_usd),
                "unpriced": list(self.unpriced), "unreported": self.unreported}

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> Tally:
        """The sums ``record()`` stored (a figure it lacks is 0)."""
        ints = {name: int(record.get(name, 0)) for name in (
            "input_tokens", "output_tokens", "cached_input_tokens", "reasoning_tokens",
            "llm_calls", "tool_calls", "unreported")}
        return cls(**ints, cost_usd=Decimal(str(record.get("cost_usd", "0"))),
                   unpriced=dict.fromkeys(str(model) for model in record.get("unpriced", ())))

    def snapshot(self) -> UsageTotals:
        return UsageTotals(
            self.input_tokens, self.output_tokens, self.cached_input_tokens,
            self.reasoning_tokens, self.llm_calls, self.tool_calls,
            None if self.unpriced else self.cost_usd, tuple(self.unpriced), self.unreported,
        )

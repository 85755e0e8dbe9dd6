"""When to try a failed LLM request again, and after how long.

The rules are the SDKs' own (exponential backoff with jitter; the server's ``Retry-After`` when
it is reasonable); the waiting is ours, on the call's cancellation, so stopping an agent never
waits out a backoff.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

__all__ = ["RetryPolicy"]


@dataclass(frozen=True)
class RetryPolicy:
    """``max_retries`` retries after the first attempt, each after ``delay_s``."""

    max_retries: int = 3
    initial_delay_s: float = 0.5
    max_delay_s: float = 8.0
    max_retry_after_s: float = 60.0
    """A server asking for a longer wait is not retried: the error is reported now."""

    def __post_init__(self) -> None:
        if self.max_retries < 0:
            raise ValueError(f"max_retries must be 0 or more, got {self.max_retries}")

    def delay_s(self, retry_no: int, retry_after_s: float | None) -> float | None:
        """Seconds to wait before retry ``retry_no`` (1 for the first); None: give up."""
        if retry_no > self.max_retries:
            return None
        if retry_after_s is not None and retry_after_s > self.max_retry_after_s:
            return None
        if retry_after_s is not None and retry_after_s > 0:
            return retry_after_s
        backoff: float = min(self.initial_delay_s * 2.0 ** (retry_no - 1), self.max_delay_s)
        return backoff * random.uniform(0.75, 1.0)  # jitter spreads out clients retrying together

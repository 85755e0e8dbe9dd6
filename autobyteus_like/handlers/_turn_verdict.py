"""TurnVerdict: what a check at the end of a response decides about the turn.

Checks (``ctx.env.turn_checks``, each a ``context.TurnCheck``) run once a response is complete
and every call has its result, before the turn would end or send the results back. A check
returns None to let the turn go on as usual, or a verdict: end with this answer, fail with
this error, or send the model a note and ask again. Typed output (``output``) and the
per-tool retry budget are such checks; the turn machine knows only this shape.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from autobyteus_like.errors import AgentTurnError

if TYPE_CHECKING:
    from autobyteus_like.llm._messages import Message

__all__ = ["TurnVerdict"]


@dataclass(frozen=True, slots=True)
class TurnVerdict:
    """One of: ``answer`` (end the turn with it), ``failure`` (end it with this error), or
    ``note`` (a response without calls: tell the model this and ask again)."""

    answer: str | None = None
    failure: AgentTurnError | None = None
    note: str | None = None
    finish: Callable[[Sequence[Message]], str] | None = None
    """With ``answer``: makes the answer from the conversation as the turn ends (every
    result added), e.g. a handoff's ``HandedOver``."""


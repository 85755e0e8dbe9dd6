"""The checks an agent runs where a turn would end or go on (``handlers.turn_verdict``): an
empty reply (``handlers._empty_answer``), a tool's retry budget
(``handlers.tool_retry_budget``), then the typed output."""

from __future__ import annotations

from typing import TYPE_CHECKING

from autobyteus_like.handlers._empty_answer import EmptyAnswerCheck
from autobyteus_like.handlers._tool_retry_budget import ToolRetryBudget

if TYPE_CHECKING:
    from autobyteus_like.agent._config import AgentConfig
    from autobyteus_like.handlers._output_check import OutputCheck

__all__ = ["ToolRetryBudget", "turn_checks"]


def turn_checks(config: AgentConfig
                ) -> tuple[EmptyAnswerCheck | ToolRetryBudget | OutputCheck, ...]:
    """The checks of an agent with this config (each a ``handlers.context.TurnCheck``)."""
    checks: list[EmptyAnswerCheck | ToolRetryBudget | OutputCheck] = [
        EmptyAnswerCheck(config.empty_reply_nudge), ToolRetryBudget()]
    spec = config.output_spec()
    if spec is not None:
        from autobyteus_like.handlers._output_check import OutputCheck

        checks.append(OutputCheck(spec, config.output_retries,
                                  by_tool=config.output_mode == "tool"))
    return tuple(checks)

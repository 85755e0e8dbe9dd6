"""The checks an agent runs where a turn would end or go on (``handlers.turn_verdict``): a
tool's retry budget (``handlers.tool_retry_budget``), then the typed output."""

from __future__ import annotations

from typing import TYPE_CHECKING

from autobyteus_like.handlers._tool_retry_budget import ToolRetryBudget

if TYPE_CHECKING:
    from autobyteus_like.agent._config import AgentConfig
    from autobyteus_like.handlers._output_check import OutputCheck

__all__ = ["ToolRetryBudget", "turn_checks"]


def turn_checks(config: AgentConfig) -> tuple[ToolRetryBudget | OutputCheck, ...]:
    """The checks of an agent with this config (each a ``handlers.context.TurnCheck``)."""
    checks: list[ToolRetryBudget | OutputCheck] = [ToolRetryBudget()]
    spec = config.output_spec()
    if spec is not None:
        from autobyteus_like.handlers._output_check import OutputCheck

        checks.append(OutputCheck(spec, config.output_retries,
                                  by_tool=config.output_mode == "tool"))
    return tuple(checks)

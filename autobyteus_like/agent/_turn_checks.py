"""The checks an agent runs where a turn would end or go on (``handlers.turn_verdict``): an
empty reply (``handlers._empty_answer``), a call ``tool_choice`` requires in a text format
(``handlers._required_call``), a tool's retry budget (``handlers.tool_retry_budget``), then
the typed output."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from autobyteus_like.formats import NATIVE
from autobyteus_like.handlers._empty_answer import EmptyAnswerCheck
from autobyteus_like.handlers._required_call import RequiredCallCheck
from autobyteus_like.handlers._tool_retry_budget import ToolRetryBudget

if TYPE_CHECKING:
    from autobyteus_like.agent._config import AgentConfig

__all__ = ["ToolRetryBudget", "turn_checks"]


def turn_checks(config: AgentConfig) -> tuple[Any, ...]:
    """The checks of an agent with this config, in the order they are asked (each a
    ``handlers._context.TurnCheck``)."""
    checks: list[Any] = [EmptyAnswerCheck(config.empty_reply_nudge)]
    if config.handoffs:  # first: a settled handoff ends the turn whatever the rest says
        from autobyteus_like.handlers._handoff import HandoffCheck

        checks.insert(0, HandoffCheck())
    choice = config.call_rules().choice
    if choice is not None and choice.forces_a_call and config.resolved_format() != NATIVE:
        checks.append(RequiredCallCheck(choice))  # a provider enforces it natively
    checks.append(ToolRetryBudget())
    spec = config.output_spec()
    if spec is not None:
        from autobyteus_like.handlers._output_check import OutputCheck

        checks.append(OutputCheck(spec, config.output_retries,
                                  by_tool=config.output_mode == "tool"))
    return tuple(checks)

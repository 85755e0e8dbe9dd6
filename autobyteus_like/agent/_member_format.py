"""A member's text format under its call rules: taught by ``RuledFormatter``, enforced by
``CallPolicy``. Native calls carry the rules on the request instead (``member_llm``)."""

from __future__ import annotations

from autobyteus_like.formats import NATIVE, ToolFormat
from autobyteus_like.formatters._tool_choice import RuledFormatter
from autobyteus_like.parsers._call_policy import CallPolicy
from autobyteus_like.tools._call_rules import CallRules

__all__ = ["member_format"]


def member_format(tool_format: ToolFormat, rules: CallRules) -> ToolFormat:
    """``tool_format`` teaching and enforcing ``rules`` (itself when there are none, or when
    it is native)."""
    if tool_format.name == NATIVE or not rules.any:
        return tool_format
    return ToolFormat(tool_format.name, RuledFormatter(tool_format.formatter, rules),
                      CallPolicy(tool_format.parser_factory, rules))

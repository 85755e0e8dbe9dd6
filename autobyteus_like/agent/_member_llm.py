"""A member's LLM as its agent uses it: the member's call rules on every request
(``ruled_llm``), and with ``tool_format: auto`` the format adapting to what the server and
model can do.

Both live behind the LLM seam, so the turn machine never branches on them: it speaks native
tool calling, and ``FormatAdaptingLLM`` (``format_adapting``) translates when it has switched to
a text format.
"""

from __future__ import annotations

from autobyteus_like.agent._ruled_llm import RuledLLM
from autobyteus_like.llm._base import LLM
from autobyteus_like.tools._call_rules import CallRules

__all__ = ["AUTO_FORMAT", "member_llm"]

AUTO_FORMAT = "auto"
"""``tool_format: auto``: native where it works, else a text format."""


def member_llm(llm: LLM, rules: CallRules, *, adapt: bool) -> LLM:
    """``llm`` as a member with these rules uses it (itself when nothing needs adding)."""
    if adapt:
        from autobyteus_like.agent._format_adapting import FormatAdaptingLLM

        return FormatAdaptingLLM(llm, rules)
    return RuledLLM(llm, rules) if rules.any else llm

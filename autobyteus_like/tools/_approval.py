"""Which calls wait for a person: the one rule the turn machine applies and ``validate``
reports. A tool marked ``dangerous`` always waits; one marked ``requires_approval`` waits unless
the agent's ``approval_policy`` is ``auto_approve_marked``; an unmarked tool waits only when
``auto_execute_tools`` is off and the policy is ``all``."""

from __future__ import annotations

from typing import Literal

from autobyteus_like.tools._definition import ToolDefinition

__all__ = ["APPROVAL_POLICIES", "ApprovalPolicyName", "waits_for_approval"]

ApprovalPolicyName = Literal["all", "marked", "auto_approve_marked"]
"""``all``: with ``auto_execute_tools`` off, every call waits (the default); ``marked``: only
marked tools wait; ``auto_approve_marked``: marked tools run unasked (``dangerous`` ones still
wait)."""

APPROVAL_POLICIES: tuple[ApprovalPolicyName, ...] = ("all", "marked", "auto_approve_marked")


def waits_for_approval(tool: ToolDefinition, *, auto_execute_tools: bool,
                       approval_policy: ApprovalPolicyName) -> bool:
    """Whether a call to ``tool`` waits for approve()/deny() before its body starts. An
    answer (the typed output's ``final_result``) never waits."""
    if tool.category == "output":
        return False
    if tool.dangerous:
        return True
    if tool.requires_approval:
        return approval_policy != "auto_approve_marked"
    return not auto_execute_tools and approval_policy == "all"

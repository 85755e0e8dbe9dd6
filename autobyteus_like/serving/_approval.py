"""Approvals when no person is there to ask: a call that waits for approval runs only if the
server was started with a policy allowing its tool (``--approve PATTERN``, ``--yes``);
otherwise it is denied with a reason saying how to allow it."""

from __future__ import annotations

from collections.abc import Sequence
from fnmatch import fnmatchcase

__all__ = ["ApprovalPolicy"]


class ApprovalPolicy:
    """Tool-name patterns whose calls are approved; every other call is denied."""

    def __init__(self, approved: Sequence[str] = ()) -> None:
        self.approved = tuple(approved)

    def decide(self, tool: str) -> tuple[bool, str]:
        """Whether a call to ``tool`` may run, and the reason given when it may not. A remote
        agent's question (``a2a_answer``) is a person's to answer: no policy answers it."""
        from autobyteus_like.llm._remote_a2a import REMOTE_ANSWER_NAME  # (not on import)

        if tool == REMOTE_ANSWER_NAME:
            return False, ("a remote agent's question needs a person's answer; a server's "
                           "approval policy (--approve, --yes) never answers one")
        if any(fnmatchcase(tool, pattern) for pattern in self.approved):
            return True, ""
        return False, (f"this team is served over MCP without an approval policy for {tool}; "
                       f"the server must be started with --approve '{tool}' (or --yes) to "
                       "allow such calls")

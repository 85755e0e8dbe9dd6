"""remote_agent_tool: a remote A2A agent as a tool of a member (``ask(message) -> answer``).

The tool sends its ``message`` to the agent at ``url`` and returns the agent's answer, as
``RemoteA2AAgent`` does for a member's turn (the same context for every call of one tool).
The call's cancellation (the member stopped, the tool's timeout) cancels the remote task;
a remote that is down, fails or asks for input is a failed call (``NOT_AVAILABLE``) whose
message names the URL and what happened.
"""

from __future__ import annotations

import asyncio
import threading

from autobyteus_like.errors import LLMError, ToolFailure
from autobyteus_like.llm._remote_a2a import RemoteA2AAgent
from autobyteus_like.tools._decorator import tool
from autobyteus_like.tools._definition import ToolDefinition
from autobyteus_like.tools._invocation import ErrorCode

__all__ = ["remote_agent_tool"]


def remote_agent_tool(url: str, *, name: str, description: str | None = None,
                      token: str | None = None, timeout_s: float = 300.0) -> ToolDefinition:
    """A tool named ``name`` asking the A2A agent at ``url``."""
    agent = RemoteA2AAgent(url, token=token, timeout_s=timeout_s)

    async def ask(message: str) -> str:
        """Ask the remote agent; its answer.

        Args:
            message: What to ask, with everything the agent needs to answer.
        """
        cancel = threading.Event()
        work = asyncio.ensure_future(agent.ask(message, cancel))
        try:
            answer = await asyncio.shield(work)
        except asyncio.CancelledError:
            cancel.set()  # the remote task is cancelled before the call ends
            await asyncio.gather(work, return_exceptions=True)
            raise
        except LLMError as exc:
            raise ToolFailure(ErrorCode.NOT_AVAILABLE, exc.message,
                              suggestion="do without this agent for now") from None
        return answer or ""

    return tool(name=name, description=description or f"Ask the A2A agent at {url}.",
                timeout_s=timeout_s + 5, needs_network=True)(ask)

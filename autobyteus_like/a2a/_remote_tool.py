"""remote_agent_tool: a remote A2A agent as a tool of a member (``ask(message) -> answer``);
``remote_agent_tools``: that tool and ``<name>_answer``, with which a person answers the remote's
questions through our approval flow.

The tool sends its ``message`` to the agent at ``url`` and returns the agent's answer, as
``RemoteA2AAgent`` does for a member's turn; each call is a new A2A context of its own (a
tool is shared by members and conversations: no caller ever sees another's exchange), so a
message says everything the remote needs.
The call's cancellation (the member stopped, the tool's timeout) cancels the remote task;
a remote that is down or fails is a failed call (``NOT_AVAILABLE``) whose message names the URL
and what happened. A remote that asks for input (``input-required``: a served team's approval)
is declined by ``remote_agent_tool`` (its task cancelled, the call failed saying so). With
``remote_agent_tools`` its question is the call's result instead and its task waits: the LLM
may call ``<name>_answer(task_id, answer)``, a tool that always waits for a person's approval
(the person sees the question in the result before it), so a remote's request is never
answered unasked; at most 16 questions wait (past it the oldest task is cancelled).
"""

from __future__ import annotations

import uuid

from autobyteus_like.errors import LLMError, ToolFailure
from autobyteus_like.llm._remote_a2a import RemoteA2AAgent, RemoteQuestion
from autobyteus_like.team._remote_asks import ask_remote, card_skills, skill_local_name
from autobyteus_like.tools._decorator import tool
from autobyteus_like.tools._definition import ToolDefinition
from autobyteus_like.tools._invocation import ErrorCode

__all__ = ["remote_agent_tool", "remote_agent_tools", "remote_skill_tools"]

_MOST_WAITING = 16
"""Questions of one remote left waiting at most; past it the oldest task is cancelled (each
holds a conversation of the remote until answered)."""


def remote_agent_tool(url: str, *, name: str, description: str | None = None,
                      token: str | None = None, timeout_s: float = 300.0) -> ToolDefinition:
    """A tool named ``name`` asking the A2A agent at ``url`` (a remote's question declined)."""
    return _Remote(url, name, token, timeout_s, answers=False).ask_tool(description)


def remote_agent_tools(url: str, *, name: str, description: str | None = None,
                       token: str | None = None, timeout_s: float = 300.0
                       ) -> tuple[ToolDefinition, ToolDefinition]:
    """The tools ``name`` (ask the A2A agent at ``url``) and ``<name>_answer`` (answer its
    question, after a person approved the call)."""
    remote = _Remote(url, name, token, timeout_s, answers=True)
    return remote.ask_tool(description), remote.answer_tool()


def remote_skill_tools(url: str, *, name: str, token: str | None = None,
                       timeout_s: float = 300.0) -> list[ToolDefinition]:
    """One tool per skill of the A2A agent at ``url`` (its agent card read now): ``name.<skill
    id>``, described by the skill, sending its message to that skill (the message's metadata
    ``skill``; ``serve-a2a`` gives it to that member). Each is a ``remote_agent_tool``: its
    own A2A context per call, cancelled with the call, its timeout, a remote's question
    declined. ``ToolFailure`` (``NOT_AVAILABLE``) when the card cannot be read or lists no
    skill."""
    skills = card_skills(url, token, timeout_s)
    tools = []
    for skill in skills:
        local = skill_local_name(skill["id"])
        about = str(skill.get("description") or skill.get("name") or skill["id"])
        remote = _Remote(url, f"{name}.{local}", token, timeout_s, answers=False,
                         skill=skill["id"])
        tools.append(remote.ask_tool(f"Ask the skill {skill['id']!r} of the A2A agent at "
                                     f"{url}: {about}"[:1000]))
    return tools


class _Remote:
    """One remote agent behind one or two tools, and its tasks waiting for an answer."""

    def __init__(self, url: str, name: str, token: str | None, timeout_s: float, *,
                 answers: bool, skill: str | None = None) -> None:
        self.agent = RemoteA2AAgent(url, token=token, timeout_s=timeout_s)
        self.name = name
        self.answers = answers
        self.skill = skill
        self.waiting: dict[str, str] = {}  # task id -> its context

    async def _send(self, text: str, task: str | None = None, context: str | None = None
                    ) -> str:
        context = context or uuid.uuid4().hex  # a call's own, or its waiting task's
        try:
            answer = await ask_remote(self.agent, text, task=task, context=context,
                                      keep_question=self.answers, skill=self.skill)
        except RemoteQuestion as asked:
            self.waiting[asked.task_id] = context
            while len(self.waiting) > _MOST_WAITING:  # the oldest unanswered one goes
                oldest = next(iter(self.waiting))
                del self.waiting[oldest]
                await self._cancel(oldest)
            return (f"The remote agent asks: {asked.question}\nIts task {asked.task_id} waits "
                    f"for the answer: call {self.name}_answer with task_id "
                    f"{asked.task_id!r} and the answer ('approve', or 'deny: <reason>'); a "
                    "person approves that call first. Asking it anything else cancels it.")
        except LLMError as exc:
            raise ToolFailure(ErrorCode.NOT_AVAILABLE, exc.message,
                              suggestion="do without this agent for now") from None
        return answer

    def ask_tool(self, description: str | None) -> ToolDefinition:
        async def ask(message: str) -> str:
            """Ask the remote agent; its answer.

            Args:
                message: What to ask, with everything the agent needs to answer.
            """
            return await self._send(message)

        return tool(name=self.name,
                    description=description or f"Ask the A2A agent at {self.agent.url}.",
                    timeout_s=self.agent.timeout_s + 5, needs_network=True)(ask)

    def answer_tool(self) -> ToolDefinition:
        async def answer(task_id: str, answer: str) -> str:
            """Answer the remote agent's question (a person approves this call first).

            Args:
                task_id: The task whose question this answers, as the question said.
                answer: The answer: 'approve', or 'deny: <reason>', or what it asked for.
            """
            context = self.waiting.pop(task_id, None)
            if context is None:
                raise ToolFailure(ErrorCode.INVALID_ARGS, f"no question of the remote agent "
                                  f"waits with task id {task_id!r}",
                                  suggestion=f"ask it again with {self.name}")
            return await self._send(answer, task=task_id, context=context)

        return tool(name=f"{self.name}_answer", requires_approval=True,
                    description=f"Answer a question of the A2A agent at {self.agent.url} "
                                "(waits for a person's approval).",
                    timeout_s=self.agent.timeout_s + 5, needs_network=True)(answer)

    async def _cancel(self, task: str) -> None:
        import httpx
        from a2a.client import ClientConfig, create_client
        from a2a.types import CancelTaskRequest

        token = self.agent.token
        headers = {"Authorization": f"Bearer {token}"} if token else None
        try:
            async with httpx.AsyncClient(headers=headers, timeout=10) as http:
                client = await create_client(self.agent.url, ClientConfig(httpx_client=http))
                await client.cancel_task(CancelTaskRequest(id=task))
                await client.close()
        except Exception:  # gone or finished: nothing waits any more either way
            pass

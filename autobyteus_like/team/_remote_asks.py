"""A remote A2A member asked as a tool: ``ask:NAME`` where NAME is a member with ``a2a:``
gives the caller ``ask_NAME(request)``, which sends the request to that remote agent and
returns its answer; ``ask:NAME.SKILL`` gives ``ask_NAME.SKILL`` asking one skill of its card
(the message's metadata ``skill``), ``ask:NAME.*`` one such tool per skill of its card (read
when the team starts).

The rules are the member asks' (``team/_member_tools.py``): each call is a fresh A2A context
of its own (as a fresh instance of a member is per call), the depth limit counts it as one
level (``CallGraph``), a stop of the caller or its call's timeout cancels the remote task, and
a remote that is down, fails, times out (its ``timeout_s``) or asks for input (its question
declined, its task cancelled, as ``remote_agent_tool`` does) is a failed result saying why.
"""

from __future__ import annotations

import asyncio
import re
import threading
import uuid
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any, Protocol

from autobyteus_like.errors import ConfigError, LLMError, ToolFailure
from autobyteus_like.llm._remote_a2a import A2AMember, RemoteA2AAgent
from autobyteus_like.tools._context import ToolContext
from autobyteus_like.tools._decorator import tool
from autobyteus_like.tools._definition import ToolDefinition
from autobyteus_like.tools._invocation import ErrorCode

if TYPE_CHECKING:
    from autobyteus_like.team._call_graph import CallGraph


_CANCEL_WAIT_S = 15.0
"""How long a cancelled ask waits for the remote to be told (its task named and cancelled)."""


class AskGuard(Protocol):
    """Whose ``graph`` guards the team's calls (``MemberCalls``: it travels to a Ray host,
    its graph made anew there)."""

    graph: CallGraph


__all__ = ["ASK_PREFIX", "AskGuard", "ask_remote", "ask_tool_name", "asked_member", "card_skills",
           "remote_ask_tools", "skill_local_name", "split_ask"]

ASK_PREFIX = "ask:"
"""``ask:NAME`` in a member's ``tools`` names a teammate it may call like a tool."""


def asked_member(item: object) -> str | None:
    """The member an ``ask:NAME`` tool entry names (None: not one)."""
    if isinstance(item, str) and item.startswith(ASK_PREFIX):
        return item[len(ASK_PREFIX):]
    return None


def ask_tool_name(member: str) -> str:
    """The tool a caller is taught for asking ``member``."""
    return f"ask_{member}"



def split_ask(entry: str, members: list[str]) -> tuple[str, str | None]:
    """``ask:ENTRY``'s member and skill: the member named by all of ``ENTRY``, else by the
    longest part before a dot (``NAME.SKILL``; member names may hold dots); ``(ENTRY, None)``
    when none is a member."""
    if entry in members:
        return entry, None
    dots = [i for i, char in enumerate(entry) if char == "."]
    for i in reversed(dots):
        if entry[:i] in members:
            return entry[:i], entry[i + 1:]
    return entry, None


def skill_local_name(skill: str) -> str:
    """A skill id as it reads in a tool's name."""
    return re.sub(r"[^A-Za-z0-9_\-]", "_", skill)[:64]


def card_skills(url: str, token: str | None, timeout_s: float) -> list[dict[str, Any]]:
    """The skills the agent card at ``url`` lists (each a mapping with a string ``id``);
    ``ToolFailure`` (``NOT_AVAILABLE``) when the card cannot be read or lists no skill."""
    import httpx

    headers = {"Authorization": f"Bearer {token}"} if token else None
    where = url.rstrip("/") + "/.well-known/agent-card.json"
    try:
        card = httpx.get(where, headers=headers, timeout=min(timeout_s, 30)).raise_for_status()
        skills = card.json().get("skills") or []
    except (httpx.HTTPError, ValueError, AttributeError) as exc:
        raise ToolFailure(ErrorCode.NOT_AVAILABLE, f"the agent card at {where} cannot be read: "
                          f"{type(exc).__name__}: {exc}") from None
    found = [s for s in skills if isinstance(s, dict) and isinstance(s.get("id"), str)]
    if not found:
        raise ToolFailure(ErrorCode.NOT_AVAILABLE, f"the agent card at {where} lists no skill")
    return found


async def ask_remote(agent: RemoteA2AAgent, text: str, *, task: str | None = None,
                     context: str | None = None, keep_question: bool = False,
                     skill: str | None = None) -> str:
    """``agent.ask`` in a new A2A context (or ``context``), its remote task cancelled before
    this returns when the call is cancelled. ``LLMError`` (a ``RemoteQuestion`` with
    ``keep_question``) as ``ask`` raises it."""
    cancel = threading.Event()
    done: Future[str | None] = Future()

    def run() -> None:  # on a loop of its own: a stop of the caller's loop cannot cut it
        try:
            done.set_result(asyncio.run(agent.ask(text, cancel, task=task,
                                                  context=context or uuid.uuid4().hex,
                                                  keep_question=keep_question, skill=skill)))
        except BaseException as exc:  # (handed to the caller)
            done.set_exception(exc)

    worker = threading.Thread(target=run, name=f"A2A ask {agent.url}", daemon=True)
    worker.start()
    try:
        answer = await asyncio.shield(asyncio.wrap_future(done))
    except asyncio.CancelledError:
        cancel.set()  # the remote task is cancelled before the call ends (its loop may be
        worker.join(_CANCEL_WAIT_S)  # stopping too: waited for here, never on that loop)
        raise
    return answer or ""


def remote_ask_tools(calls: AskGuard, asked: str, remotes: dict[str, A2AMember],
                     roles: dict[str, str], chain: tuple[str, ...], caller: str, *,
                     where: str = "team", entry: str = "ask:") -> list[ToolDefinition] | None:
    """The tools ``ask:ASKED`` gives ``caller`` (whose chain of members from the team's
    running one is ``chain``) when it names an ``a2a:`` member (``remotes``) or its skills
    (None: it names a member of ours): ``ask:NAME``, ``ask:NAME.SKILL``, or ``ask:NAME.*``,
    whose card is read now (a ``ConfigError`` from ``where`` naming ``entry`` when it cannot
    be)."""
    callee, skill = split_ask(asked, list(roles))
    if (spec := remotes.get(callee)) is None:
        return None
    role = roles.get(callee, "")
    agent = spec.build()
    about = f" {callee}: {role}" if role else ""
    if skill is None:
        return [_tool(calls, callee, agent, None, f"ask_{callee}",
                      f"Ask {callee}, a remote agent, and get its answer as this call's "
                      f"result.{about}", chain, caller)]
    if skill != "*":
        return [_tool(calls, callee, agent, skill, f"ask_{callee}.{skill_local_name(skill)}",
                      f"Ask the skill {skill!r} of {callee}, a remote agent, and get its "
                      f"answer as this call's result.{about}", chain, caller)]
    return [_tool(calls, callee, agent, found["id"],
                  f"ask_{callee}.{skill_local_name(found['id'])}",
                  f"Ask the skill {found['id']!r} of {callee}, a remote agent: "
                  f"{found.get('description') or found.get('name') or found['id']}"[:1000],
                  chain, caller)
            for found in _skills(agent, where, entry)]


def _skills(agent: RemoteA2AAgent, where: str, entry: str) -> list[dict[str, Any]]:
    try:
        return card_skills(agent.url, agent.token, agent.timeout_s)
    except ToolFailure as exc:
        raise ConfigError(where, [f"{entry}: {exc.message}"]) from None


def _tool(calls: AskGuard, callee: str, agent: RemoteA2AAgent, skill: str | None, name: str,
          description: str, chain: tuple[str, ...], caller: str) -> ToolDefinition:
    async def ask(request: str, context: ToolContext) -> str:
        """Ask the remote agent; its answer.

        Args:
            request: What you ask of it; include everything it needs, it sees only this.
        """
        target = f"{callee}@{caller}/{context.invocation_id}"
        calls.graph.enter(chain, caller, callee, target)  # one level deeper, as a member's ask
        try:
            return await ask_remote(agent, request, skill=skill)
        except LLMError as exc:
            raise ToolFailure(ErrorCode.NOT_AVAILABLE, f"{callee} did not answer: {exc.message}",
                              suggestion="do without its answer for now",
                              recoverable=False) from None
        finally:
            calls.graph.leave(caller, target)

    # not idempotent: a call cut by a crash is reported, never sent to the remote again
    return tool(name=name, description=description, category="team",
                timeout_s=agent.timeout_s + 5)(ask)

"""RemoteA2AAgent: a remote A2A agent in a team, as the "LLM" of a member (in YAML, a member's
``a2a: {url: ..., token_env: ..., timeout_s: ...}`` instead of ``llm:``: ``A2AMember``).

Each turn of the member sends the newest user message's text to the remote agent (one A2A
context per member agent: ``AgentConfig.build_llm`` gives each its ``for_agent`` copy, so the
remote keeps one conversation per conversation of ours) and streams its task:
the remote's answer (its artifacts' text, else its final status message) is the member's
reply. Safe by default:

* the member's stop (its ``cancel`` event) sends ``CancelTask`` for the remote task and ends
  the turn quietly; a cancel the remote refuses (its task still going on, or unreadable) is an
  ``LLMError`` saying so, never a quiet stop, and a task that completed as the cancel came
  gives its answer (the remote did the work: it is not reported as cancelled);
* no answer within ``timeout_s`` is an ``LLMError`` saying so (the remote task is cancelled);
* a remote that cannot be reached, goes away mid-task, answers 401, fails its task or
  rejects it is an ``LLMError`` naming the URL and what happened, never a hang;
* a remote asking for input (``input-required``) is never answered unasked: when the member
  has the tool ``a2a_answer`` (an ``a2a:`` member always has it: ``remote_answer_tool()``) the
  turn ends in a call of it, whose arguments show the question, and that tool always waits
  for a person's approval (our approval flow: ``approve``/``deny``, an A2A or MCP client of
  ours, the CLI prompt; a host with nobody to ask denies it with its reason); the decision is
  sent as the next message of the waiting task (``approve``, or ``deny: <reason>``) and the
  remote's answer is the member's reply. Without that tool the question is declined (its task
  cancelled, an ``LLMError`` saying so).
"""

from __future__ import annotations

import asyncio
import copy
import functools
import json
import os
import queue
import threading
import uuid
from collections.abc import Callable, Iterator
from typing import Any

from loguru import logger
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from autobyteus_like.errors import LLMError, RemoteQuestion
from autobyteus_like.llm._base import LLM
from autobyteus_like.llm._messages import LLMChunk, LLMRequest, Message, NativeToolCall
from autobyteus_like.tools._decorator import tool
from autobyteus_like.tools._definition import ToolDefinition
from autobyteus_like.tools._invocation import DENIED_PREFIX

__all__ = ["REMOTE_ANSWER_NAME", "A2AMember", "RemoteA2AAgent", "RemoteQuestion",
           "remote_answer_tool"]


REMOTE_ANSWER_NAME = "a2a_answer"
"""The tool through which a remote member's question waits for a person (``dangerous``:
``auto_approve_marked`` does not waive it; a host's blanket ``--yes`` never answers it)."""


@functools.cache
def remote_answer_tool() -> ToolDefinition:
    """The ``a2a_answer`` tool, built when first needed (not on import: reading its docstring
    loads griffe)."""

    @tool(name=REMOTE_ANSWER_NAME, requires_approval=True, dangerous=True,
          description="Pass the remote A2A agent's question to a person (never called by "
                      "hand).")
    def remote_answer(task_id: str, question: str) -> str:
        """A person approved the remote agent's question: the remote is told so.

        Args:
            task_id: The remote task waiting for the answer.
            question: What the remote agent asks.
        """
        return "approve"

    return remote_answer


_CANCEL_POLL_S = 0.05
"""How often the stream looks at the member's stop (a ``threading.Event`` has no callback)."""
_NAMING_WAIT_S = 10.0
"""How long a stopped ask waits for the remote to name its task (to cancel it)."""


class A2AMember(BaseModel):
    """A member's ``a2a:``: the remote agent that is its model."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    url: str = Field(pattern=r"^https?://\S+$")
    """Where the agent answers (its card at ``URL/.well-known/agent-card.json``)."""
    token_env: str | None = None
    """The environment variable holding its bearer token (never the token itself)."""
    timeout_s: float = Field(default=300.0, gt=0)

    @classmethod
    def into_member(cls, data: Any) -> Any:
        """A member's data with its ``a2a:`` made its ``llm`` (``ValueError`` for one that is
        not one, or given with ``llm``)."""
        if not isinstance(data, dict) or data.get("a2a") is None:
            return data
        if data.get("llm") is not None:
            raise ValueError("give llm or a2a (a remote agent as the model), not both")
        try:
            spec = cls.model_validate(data["a2a"])
        except ValidationError as exc:
            raise ValueError("a2a: " + "; ".join(
                f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())) from None
        tools = [t for t in data.get("tools") or () if t != REMOTE_ANSWER_NAME]
        return {"tool_format": "native", **data, "a2a": spec, "llm": spec.build(),
                "tools": [*tools, remote_answer_tool()]}  # (its question: a native call)

    def build(self) -> RemoteA2AAgent:
        """The member's model (``ValueError`` when ``token_env`` is not set)."""
        token = None
        if self.token_env is not None:
            token = os.environ.get(self.token_env)
            if not token:
                raise ValueError(f"a2a: token_env {self.token_env}: the variable is not set")
        return RemoteA2AAgent(self.url, token=token, timeout_s=self.timeout_s)


class RemoteA2AAgent(LLM):
    """The A2A agent at ``url`` (its card at ``url/.well-known/agent-card.json``)."""

    reports_usage = False

    def __init__(self, url: str, *, token: str | None = None, timeout_s: float = 300.0) -> None:
        from autobyteus_like._extras import require_extra

        require_extra("a2a", f"A2A agent {url!r}")
        self.url = url
        self.token = token
        self.timeout_s = timeout_s
        self.context_id = uuid.uuid4().hex

    def __repr__(self) -> str:
        return f"RemoteA2AAgent({self.url!r})"

    def for_agent(self) -> RemoteA2AAgent:
        """The same remote with an A2A context of its own, for one agent (each conversation
        of a team has its own member agents: they never share the remote's context)."""
        mine = copy.copy(self)
        mine.context_id = uuid.uuid4().hex
        return mine

    def stream(self, request: LLMRequest, cancel: threading.Event) -> Iterator[LLMChunk]:
        text = next((m.content for m in reversed(request.messages) if m.role == "user"), "")
        asks = any(t.name == REMOTE_ANSWER_NAME for t in request.tools)
        task, decided = _decision(request.messages) if asks else (None, None)
        if decided is not None:
            text = decided  # a person's decision on the remote's question, to its task
        pieces: queue.SimpleQueue[str] = queue.SimpleQueue()
        loop = asyncio.new_event_loop()
        work = loop.create_task(self.ask(text, cancel, pieces.put, task=task,
                                         keep_question=asks))
        streamed: list[str] = []
        try:
            while not work.done():  # the remote's text as it comes, on this worker thread
                loop.run_until_complete(asyncio.wait({work}, timeout=_CANCEL_POLL_S))
                while not pieces.empty():
                    piece = pieces.get()
                    streamed.append(piece)
                    yield LLMChunk(text=piece)
            answer = work.result()
        except RemoteQuestion as asked:  # to a person, through the tool that waits for one
            arguments = json.dumps({"task_id": asked.task_id, "question": asked.question})
            yield LLMChunk(final=True, finish_reason="tool_calls", tool_calls=(NativeToolCall(
                id=f"a2a-{uuid.uuid4().hex[:12]}", name=REMOTE_ANSWER_NAME,
                arguments=arguments),))
            return
        finally:
            if not work.done():  # the consumer went away: the remote task is cancelled
                cancel.set()
                loop.run_until_complete(asyncio.gather(work, return_exceptions=True))
            loop.close()
        if answer is None:
            return
        said = "".join(streamed)
        rest = "" if said.rstrip().endswith(answer.strip()) else answer
        if said and rest:
            rest = "\n\n" + rest
        yield LLMChunk(text=rest, final=True, finish_reason="stop")

    def _error(self, what: str, cause: BaseException | None = None) -> LLMError:
        error = LLMError(f"A2A agent at {self.url}: {what}", provider="a2a", model=self.url)
        error.__cause__ = cause
        return error

    async def ask(self, text: str, cancel: threading.Event,
                  streamed: Callable[[str], None] | None = None, *, task: str | None = None,
                  keep_question: bool = False, context: str | None = None,
                  skill: str | None = None) -> str | None:
        """Send ``text`` (to the waiting task ``task``: the answer to its question); the
        remote's answer, or None once ``cancel`` was set (the remote task cancelled).
        ``streamed`` is given the remote's text as it streams (its artifact chunks other than
        the final answer). ``context``: the A2A context to ask in (this agent's without).
        ``skill``: the remote's skill to ask (its id, sent as the message's metadata
        ``skill``, which ``serve-a2a`` routes to that member).
        A remote asking for input: its task is cancelled and an
        ``LLMError`` says so, or with ``keep_question`` a ``RemoteQuestion`` (its task left
        waiting). ``LLMError`` saying what went wrong."""
        import httpx
        from a2a.client import A2AClientError, ClientConfig, create_client

        headers = {"Authorization": f"Bearer {self.token}"} if self.token else None
        async with httpx.AsyncClient(headers=headers, timeout=self.timeout_s) as http:
            try:
                client = await create_client(self.url, ClientConfig(httpx_client=http))
            except (A2AClientError, httpx.HTTPError) as exc:
                raise self._error(f"cannot reach it: {_why(exc)}", exc) from None
            task_id: list[str] = []
            if task is not None:
                task_id.append(task)
            named = asyncio.Event()  # set once the remote named its task
            work = asyncio.ensure_future(self._run(client, text, task_id, streamed,
                                                   context or self.context_id, named, skill))
            stop = asyncio.ensure_future(_stopped(cancel))
            try:
                done, _ = await asyncio.wait({work, stop}, timeout=self.timeout_s,
                                             return_when=asyncio.FIRST_COMPLETED)
            finally:
                stop.cancel()
            if work in done and not isinstance(work.exception(), RemoteQuestion):
                await client.close()
                return work.result()
            if work not in done and not task_id:  # stopped before the remote named its
                naming: asyncio.Future[Any] = asyncio.ensure_future(named.wait())  # to cancel
                waited: set[asyncio.Future[Any]] = {work, naming}
                await asyncio.wait(waited, timeout=_NAMING_WAIT_S,
                                   return_when=asyncio.FIRST_COMPLETED)
                naming.cancel()
                if work.done() and work.exception() is None:  # it finished meanwhile
                    await client.close()
                    return work.result()
            asked = work.exception() if work.done() else None
            if isinstance(asked, RemoteQuestion) and keep_question and task_id:
                await client.close()
                raise RemoteQuestion(self.url, asked.question, task_id[0])
            work.cancel()
            await asyncio.gather(work, return_exceptions=True)
            finished, failed = (await _cancel_task(client, task_id[0]) if task_id
                                else (None, None))
            await client.close()
            stopped = "stopped" if cancel.is_set() else f"no answer within {self.timeout_s:g} s"
            if finished is not None and not isinstance(asked, RemoteQuestion):
                logger.info("A2A agent at {}: {}, but its task {} had completed as it was "
                            "cancelled: its answer stands", self.url, stopped, task_id[0])
                return finished  # (the remote did the work: never reported as cancelled)
            if not task_id and not isinstance(asked, LLMError):
                failed = "the remote had not named its task yet, so it was not cancelled"
            if failed is not None:
                which = task_id[0] if task_id else "(not named)"
                logger.warning("A2A agent at {}: {}; cancelling its task {} failed: {}",
                               self.url, stopped, which, failed)
                raise self._error(f"{stopped}, and cancelling its task {which} failed "
                                  f"({failed}): it may still be working on it")
            if isinstance(asked, RemoteQuestion):  # never answered unasked: declined
                raise self._error(
                    f"it asks for input ({asked.question}); nobody here answers a remote "
                    "agent's question, so its task was cancelled")
            if cancel.is_set():
                return None
            raise self._error(f"no answer within {self.timeout_s:g} s")

    async def _run(self, client: Any, text: str, task_id: list[str],
                   streamed: Callable[[str], None] | None, context: str,
                   identified: asyncio.Event | None = None, skill: str | None = None
                   ) -> str:
        import httpx
        from a2a.client import A2AClientError
        from a2a.helpers.proto_helpers import new_text_message
        from a2a.types import Role, SendMessageRequest, TaskState

        ids = {"task_id": task_id[0]} if task_id else {}
        message = new_text_message(text, role=Role.ROLE_USER, context_id=context, **ids)
        if skill is not None:
            message.metadata.update({"skill": skill})
        request = SendMessageRequest(message=message)
        artifacts: dict[str, list[str]] = {}  # by artifact id, in order
        status_text = ""
        state = None
        try:
            async for event in client.send_message(request):
                if identified is not None and (event.HasField("task")
                                               or event.HasField("status_update")):
                    identified.set()  # (its id kept just below)
                if event.HasField("task"):
                    task_id[:] = [event.task.id]
                    state = event.task.status.state
                    artifacts = {a.artifact_id: [p.text for p in a.parts if p.text]
                                 for a in event.task.artifacts}
                    status_text = _message_text(event.task.status.message)
                elif event.HasField("status_update"):
                    task_id[:] = [event.status_update.task_id or (task_id or [""])[0]]
                    state = event.status_update.status.state
                    status_text = _message_text(event.status_update.status.message)
                elif event.HasField("artifact_update"):
                    update = event.artifact_update
                    parts = [p.text for p in update.artifact.parts if p.text]
                    kept = artifacts.setdefault(update.artifact.artifact_id, [])
                    kept[:] = [*kept, *parts] if update.append else parts
                    if streamed is not None and update.artifact.name != "answer":
                        for part in parts:
                            streamed(part)
                elif event.HasField("message"):
                    return _message_text(event.message)
        except (A2AClientError, httpx.HTTPError) as exc:
            raise self._error(f"the call failed: {_why(exc)}", exc) from None
        if state == TaskState.TASK_STATE_COMPLETED:
            answer = artifacts.get("answer") or [p for a in artifacts.values() for p in a]
            return "".join(answer) if "answer" in artifacts else "\n".join(answer) or status_text
        named = TaskState.Name(state) if state is not None else "no state"
        if state == TaskState.TASK_STATE_INPUT_REQUIRED:
            raise RemoteQuestion(self.url, status_text or "no message", (task_id or [""])[0])
        if state in (TaskState.TASK_STATE_FAILED, TaskState.TASK_STATE_REJECTED,
                     TaskState.TASK_STATE_CANCELED):
            raise self._error(f"its task ended {named}: {status_text or 'no reason given'}")
        raise self._error(f"its stream ended before the task finished (last state: {named})")


def _decision(messages: tuple[Message, ...]) -> tuple[str | None, str | None]:
    """When the newest message is the result of our ``a2a_answer`` call: the waiting task and
    what to send it (``approve``, or ``deny: <reason>``); else (None, None)."""
    if not messages or messages[-1].role != "tool":
        return None, None
    asked = next((m for m in reversed(messages) if m.role == "assistant"), None)
    calls = {c.id: c for c in (asked.tool_calls if asked else ())
             if c.name == REMOTE_ANSWER_NAME}
    for result in messages[-1].tool_results:
        if (call := calls.get(result.invocation_id)) is None:
            continue
        task = str(call.arguments.get("task_id", ""))
        if result.status == "success":
            return task, "approve"
        why = result.error.message if result.error else "no reason given"
        return task, "deny: " + why.removeprefix(DENIED_PREFIX)
    return None, None


async def _cancel_task(client: Any, task: str) -> tuple[str | None, str | None]:
    """Cancel the remote ``task``: (None, None) once cancelled; (its answer, None) when it
    completed as the cancel came; (None, why) when the cancel failed and the task goes on (or
    cannot be read)."""
    from a2a.types import CancelTaskRequest, GetTaskRequest, TaskState

    try:
        done = await asyncio.wait_for(client.cancel_task(CancelTaskRequest(id=task)), 10)
        if done.status.state == TaskState.TASK_STATE_CANCELED:
            return None, None
        refused = f"the task is {TaskState.Name(done.status.state)}"
    except Exception as exc:  # refused (not cancelable, an error), gone, no answer in time
        refused = f"{type(exc).__name__}: {_why(exc)}"
    try:
        found = await asyncio.wait_for(client.get_task(GetTaskRequest(id=task)), 10)
    except Exception as exc:
        return None, f"{refused}; reading the task then failed too: {_why(exc)}"
    state = found.status.state
    if state == TaskState.TASK_STATE_COMPLETED:
        return _task_answer(found), None
    if state in (TaskState.TASK_STATE_CANCELED, TaskState.TASK_STATE_FAILED,
                 TaskState.TASK_STATE_REJECTED):
        return None, None  # (ended without an answer: nothing goes on over there)
    return None, f"{refused}; the task is {TaskState.Name(state)}"


def _task_answer(task: Any) -> str:
    """A completed task's answer: its ``answer`` artifact, else all its artifacts' text, else
    its status message."""
    artifacts = {a.artifact_id: [p.text for p in a.parts if p.text] for a in task.artifacts}
    if "answer" in artifacts:
        return "".join(artifacts["answer"])
    return "\n".join(p for a in artifacts.values() for p in a) or _message_text(
        task.status.message)


def _message_text(message: Any) -> str:
    return "\n".join(p.text for p in getattr(message, "parts", ()) if p.text)


def _why(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0][:300]


async def _stopped(cancel: threading.Event) -> None:
    while not cancel.is_set():
        await asyncio.sleep(_CANCEL_POLL_S)

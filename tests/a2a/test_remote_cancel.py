"""A stop that cannot cancel the remote task is said, never a quiet stop; a task that
completed as the cancel came keeps its answer. Against the SDK's own server (uvicorn in a
thread) whose executor completes its task as the cancel comes (the race of a cancel arriving
as the task completes), or behind a front that refuses every ``CancelTask`` (as a remote that
cannot cancel does: the SDK's own would end the task), the task going on."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

pytest.importorskip("a2a", reason="the A2A tests need autobyteus-like[a2a]")

from a2a.helpers.proto_helpers import new_task_from_user_message, new_text_part
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.tasks import TaskUpdater

from autobyteus_like import LLMError
from autobyteus_like.a2a import RemoteA2AAgent


class Stubborn(AgentExecutor):
    """Works until cancelled; its cancel completes the task."""

    def __init__(self) -> None:
        self.working = threading.Event()

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        assert context.message is not None and context.task_id and context.context_id
        await event_queue.enqueue_event(new_task_from_user_message(context.message))
        await TaskUpdater(event_queue, context.task_id, context.context_id).start_work()
        self.working.set()
        await asyncio.Event().wait()  # until cancelled

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        assert context.task_id and context.context_id
        updater = TaskUpdater(event_queue, context.task_id, context.context_id)
        await updater.add_artifact([new_text_part("finished anyway")], name="answer",
                                   artifact_id="answer", last_chunk=True)
        await updater.complete()


def refusing_cancel(app: Any) -> Any:
    """``app`` behind a front answering every ``CancelTask`` with the A2A error "task not
    cancelable" (-32002), the task going on."""

    async def front(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope.get("method") != "POST":
            await app(scope, receive, send)
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        request = json.loads(body or b"{}")
        if request.get("method") == "CancelTask":
            answer = json.dumps({"jsonrpc": "2.0", "id": request.get("id"), "error": {
                "code": -32002, "message": "this agent does not stop"}}).encode()
            await send({"type": "http.response.start", "status": 200,
                        "headers": [(b"content-type", b"application/json")]})
            await send({"type": "http.response.body", "body": answer})
            return
        sent = False

        async def replay() -> Any:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await app(scope, replay, send)

    return front


@contextmanager
def sdk_server(executor: AgentExecutor, refuse: bool = False) -> Iterator[str]:
    import uvicorn
    from a2a.server.request_handlers import DefaultRequestHandler
    from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
    from a2a.server.tasks import InMemoryTaskStore
    from starlette.applications import Starlette

    from autobyteus_like.a2a._card import team_card
    from autobyteus_like.serving._startup import listening_socket
    from autobyteus_like.team import TeamConfig

    sock = listening_socket("127.0.0.1", 0)
    url = f"http://127.0.0.1:{sock.getsockname()[1]}/"
    config = TeamConfig.model_validate({"name": "stubborn", "coordinator": "lead", "members": [
        {"name": "lead", "llm": {"provider": "scripted", "responses": ["x"]}}]})
    card = team_card(config, url, bearer=False)
    handler = DefaultRequestHandler(agent_executor=executor, task_store=InMemoryTaskStore(),
                                    agent_card=card)
    app = Starlette(routes=[
        *create_agent_card_routes(card, card_url="/.well-known/agent-card.json"),
        *create_jsonrpc_routes(handler, rpc_url="/")])
    web = uvicorn.Server(uvicorn.Config(refusing_cancel(app) if refuse else app,
                                        log_level="warning"))
    thread = threading.Thread(target=web.run, kwargs={"sockets": [sock]}, name="a2a sdk server")
    thread.start()
    try:
        yield url
    finally:
        web.should_exit = True
        thread.join(30)
        sock.close()
        assert not thread.is_alive()


def stopped_ask(url: str, executor: Stubborn) -> str | None:
    cancel = threading.Event()

    async def ask() -> str | None:
        async def stop() -> None:
            await asyncio.to_thread(executor.working.wait, 30)
            cancel.set()

        stopping = asyncio.ensure_future(stop())
        try:
            return await RemoteA2AAgent(url, timeout_s=60).ask("work", cancel)
        finally:
            await stopping

    return asyncio.run(ask())


@pytest.mark.parametrize("refuse", [False, True])
def test_a_stop_the_remote_does_not_take_is_said_and_a_finished_task_keeps_its_answer(refuse):
    executor = Stubborn()
    with sdk_server(executor, refuse) as url:
        if not refuse:  # completed as the cancel came: its answer, not a quiet stop
            assert stopped_ask(url, executor) == "finished anyway"
        else:  # refused, the task going on: said, never a quiet stop
            with pytest.raises(LLMError, match=r"stopped, and cancelling its task \S+ failed "
                                               r"\(.*this agent does not stop.*TASK_STATE_WORKI"
                                               r"NG\): it may still be working on it"):
                stopped_ask(url, executor)

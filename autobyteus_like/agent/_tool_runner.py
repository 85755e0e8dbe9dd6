"""ToolRunner: runs an agent's tool calls off its mailbox thread, in parallel, with timeouts.

Sync tools run in a bounded worker pool and post their own result; async tools run on an
asyncio loop on its own thread, or on the loop their tool is bound to (an MCP session's, see
``ToolDefinition.call_soon``). Every call's deadline goes into the agent's ``Deadlines``, which
the agent's own thread fires (it never runs a tool), so a timeout fires even when the loop is
blocked or every pool thread is stuck; starting or ending a call never has to wake another
thread. Pool and loop start on first use, so an idle agent costs no threads. Results come back
to the agent as events, in whatever order calls finish, each exactly once: from the tool, or
from its timeout.

A call that times out, and every running call when the agent stops, is cancelled: its
``ToolContext.cancelled`` is set (tools that run subprocesses kill them then), an async body is
cancelled, and a sync body that ignores it keeps its thread, which is given up (it no longer
counts against ``max_parallel_tools``) and left to finish on its own. A call still queued when
its deadline passes never starts. Stopping waits for the sync bodies it cancelled until their
deadline (at most ``STOP_GRACE_S``), so leaving ``with Agent(...)`` leaves no thread behind; a
body still running then is given up, and the log says so.

Whatever a tool raises, ``SystemExit``, ``KeyboardInterrupt`` and ``CancelledError`` included,
is a failed result (INTERNAL) and the runtime goes on: no exception from a tool, nor from a task
it left behind, can kill a worker or the loop.
A call runs inside its wrapping hooks, then the middleware, on a pool thread (an async body then
on its loop). ``stop`` and ``unstarted`` say which calls never began (so are not counted).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Callable, Coroutine, Sequence
from typing import Any

from loguru import logger

from autobyteus_like._frozen_values import builder
from autobyteus_like.agent._call_results import (
    failure_result,
    hook_result,
    shown_text,
    success_result,
    timeout_result,
)
from autobyteus_like.agent._deadlines import Deadlines
from autobyteus_like.agent._quiet_wakeup import wake_quietly
from autobyteus_like.agent._worker_pool import WorkerPool
from autobyteus_like.errors import ToolFailure
from autobyteus_like.events import AgentEvent, ToolResultReceived
from autobyteus_like.hooks._wrapping import Chain
from autobyteus_like.tools._context import ToolContext
from autobyteus_like.tools._definition import ToolDefinition
from autobyteus_like.tools._invocation import ErrorCode, ToolInvocation, ToolResult
from autobyteus_like.tools._middleware import Middleware, ToolCall
from autobyteus_like.tools._result_values import DEFAULT_MAX_RESULT_CHARS

__all__ = ["STOP_GRACE_S", "TOOL_THREAD_IDLE_S", "ToolRunner"]

STOP_GRACE_S = 5.0
"""The longest a stop waits for a cancelled sync body that has not reached its deadline."""

TOOL_THREAD_IDLE_S = 30.0
"""A tool thread that ran no call for this long ends (the next call starts one)."""

_result_received = builder(ToolResultReceived)


async def _awaited(value: Any) -> Any:
    """The value, awaited if the tool returned a coroutine."""
    return await value if asyncio.iscoroutine(value) else value


async def _contained(work: Coroutine[Any, Any, Any], tool: ToolDefinition) -> Any:
    """Await a tool's coroutine on the loop; a ``BaseException`` it raises (``SystemExit``,
    ``KeyboardInterrupt``) would stop the loop itself, so it becomes an ordinary failure."""
    try:
        return await work
    except (asyncio.CancelledError, Exception):
        raise
    except BaseException as exc:
        raise ToolFailure(ErrorCode.INTERNAL,
                          f"{tool.name} raised {type(exc).__name__}: {shown_text(exc)}") from exc


class _Call:
    """One call whose result is delivered exactly once: by the tool, or by its timeout."""

    __slots__ = ("_lock", "_settled", "begun", "bound", "context", "deadline", "invocation",
                 "post", "task", "thread", "timeout", "tool")

    def __init__(self, invocation: ToolInvocation, tool: ToolDefinition, context: ToolContext,
                 bound: Any, timeout: float | None) -> None:
        self.invocation = invocation
        self.tool = tool
        self.context = context
        self.bound = bound
        self.timeout = timeout
        self.deadline = None if timeout is None else time.monotonic() + timeout
        self._lock = threading.Lock()
        self._settled = False
        self.begun = False  # its body (or the hooks wrapping it) began: it counts as made
        self.thread: threading.Thread | None = None
        """The pool thread running a sync body, once it started."""
        self.task: asyncio.Task[None] | None = None
        """The loop task running an async body."""
        self.post: Callable[[Callable[[], None]], object] | None = None
        """Runs a callback on the loop of that task (the runner's, or the tool's own)."""

    def settle(self) -> bool:
        """True for the first caller only."""
        with self._lock:
            first, self._settled = not self._settled, True
            return first

    @property
    def settled(self) -> bool:
        """Whether its result (or its timeout) was delivered."""
        return self._settled

    def begin(self, sync: bool = True) -> bool:
        """Claim a call (a sync one for the current thread); False if it timed out in the
        queue (its TIMEOUT result is, or is about to be, delivered by its deadline)."""
        with self._lock:
            if self._settled or (self.deadline is not None and time.monotonic() >= self.deadline):
                return False
            if sync:
                self.thread = threading.current_thread()
            self.begun = True
            return True

    def withhold(self) -> bool:
        """Settle a call whose body has not begun, so it never will (False: it began)."""
        with self._lock:
            if self.begun or self._settled:
                return False
            self._settled = True
            return True


def _cancel_task(call: _Call) -> None:
    """Cancel the task of an async call, on its loop (after ``_start_async`` ran there, since
    callbacks run in order; if that loop has stopped, its tasks were cancelled with it)."""
    post = call.post
    if post is None:
        return

    def cancel() -> None:
        if call.task is not None:
            call.task.cancel()

    with contextlib.suppress(RuntimeError):
        post(cancel)


class ToolRunner:
    """Executes calls and posts ``ToolResultReceived`` events through ``post``."""

    def __init__(self, agent: str, post: Callable[[AgentEvent], None], deadlines: Deadlines,
                 max_workers: int, middleware: Sequence[Middleware] = (),
                 max_result_chars: int = DEFAULT_MAX_RESULT_CHARS) -> None:
        self._agent = agent
        self._max_result_chars = max_result_chars
        self._post = post
        self._middleware = tuple(middleware)
        self._wrapping: tuple[Callable[..., Any], ...] = self._middleware  # hooks' first
        self.unstarted: Callable[[], None] = lambda: None
        """Told (on the agent's thread) of a call that timed out before its body began."""
        self._max_workers = max_workers
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._pool: WorkerPool | None = None
        self._deadlines = deadlines
        self._tasks: set[asyncio.Task[None]] = set()
        """Strong references: the loop keeps only weak ones to running tasks."""
        self._running: set[_Call] = set()
        self._bodies = 0  # sync calls submitted whose body has not returned (queued included)
        self._lock = threading.Lock()
        self._stopped = False
        self._until = 0.0
        """When a stop gives up waiting for the sync bodies it cancelled."""

    def wrap(self, hooks: Sequence[Callable[..., Any]]) -> None:
        """The hooks' ``wrap_tool_call``, outermost first, around every call's middleware."""
        self._wrapping = (*hooks, *self._middleware)

    def submit(self, invocation: ToolInvocation, tool: ToolDefinition, timeout: float | None,
               context: ToolContext, bound: Any = None) -> None:
        """Start one call now; its result arrives later as an event. ``bound`` is the arguments
        already validated (used as is unless middleware may change them). With middleware,
        every call runs its chain on a pool thread (an async body still runs on the loop)."""
        call = _Call(invocation, tool, context, bound, timeout)
        with self._lock:
            if self._stopped:
                raise RuntimeError("the tool runner has stopped")
            self._running.add(call)
        if timeout is not None:
            self._deadlines.add(call, timeout, lambda: self._overdue(call))
        if tool.is_async and not self._wrapping:
            self._start_on_a_loop(call)
        else:
            with self._lock:
                self._bodies += 1
            self._ensure_pool().submit(self._run_sync, call)

    def _start_on_a_loop(self, call: _Call) -> None:
        """Start an async call on the loop its tool is bound to, if it has one that is
        running, else on the runner's own."""
        if call.tool.call_soon is not None:
            call.post = call.tool.call_soon
            try:
                call.tool.call_soon(lambda: self._start_async(call))
                return
            except RuntimeError:  # that loop has stopped: the tool says so from ours
                pass
        loop = self._ensure_loop()
        call.post = loop.call_soon_threadsafe
        loop.call_soon_threadsafe(self._start_async, call)

    def _finish(self, call: _Call, result: ToolResult) -> None:
        """The call's body ended: deliver its result unless its timeout came first."""
        if call.deadline is not None:
            self._deadlines.remove(call)
        with self._lock:
            self._running.discard(call)
        if call.settle():
            self._post(_result_received(agent=self._agent, result=result))

    def _overdue(self, call: _Call) -> None:
        """The call's deadline passed (fired by the agent's thread): TIMEOUT, and cancel it."""
        if not call.settle():
            return
        call.context.cancelled.set()
        with self._lock:
            self._running.discard(call)
            pool = self._pool
        if call.thread is not None and pool is not None:
            pool.abandon(call.thread)  # give its slot to the next call
        if not call.begun:  # it never began (it waited for a thread): not made
            self.unstarted()
        _cancel_task(call)
        assert call.timeout is not None
        self._post(ToolResultReceived(agent=self._agent,
                                      result=timeout_result(call.invocation, call.tool,
                                                            call.timeout)))

    def _ensure_pool(self) -> WorkerPool:
        with self._lock:
            if self._pool is None:
                self._pool = WorkerPool(f"{self._agent}-tool", self._max_workers,
                                        TOOL_THREAD_IDLE_S)
            return self._pool

    def _ensure_loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None:
                self._loop = asyncio.new_event_loop()
                self._thread = threading.Thread(target=self._run_loop, args=(self._loop,),
                                                name=f"{self._agent}-tools", daemon=True)
                self._thread.start()
            return self._loop

    def _run_loop(self, loop: asyncio.AbstractEventLoop) -> None:
        """Run the tools' loop until the runner stops; a ``SystemExit`` raised by a task a tool
        left behind is logged and the loop goes on."""
        wake_quietly()
        asyncio.set_event_loop(loop)
        loop.set_task_factory(self._new_task)
        while True:
            try:
                loop.run_forever()
            except BaseException as exc:
                logger.opt(exception=exc).error("agent {}: a tool's task raised {}; the tools' "
                                                "loop goes on", self._agent, type(exc).__name__)
                continue
            return  # stopped by stop()

    def _new_task(self, loop: asyncio.AbstractEventLoop, coro: Any, **options: Any
                  ) -> asyncio.Task[Any]:
        """Every task on the tools' loop, tools' own included, has its outcome read when it
        ends: an error it raised is logged now, never reported later by the garbage
        collector at a random moment of another thread's work."""
        task: asyncio.Task[Any] = asyncio.Task(coro, loop=loop, **options)
        task.add_done_callback(self._task_done)
        return task

    def _task_done(self, task: asyncio.Task[Any]) -> None:
        if not task.cancelled() and (error := task.exception()) is not None:
            logger.opt(exception=error).warning("agent {}: a task on the tools' loop raised {}",
                                                self._agent, type(error).__name__)

    # -- sync tools: on a pool thread ------------------------------------------------------

    def _run_sync(self, call: _Call) -> None:
        if self._stopped or not call.begin():  # stopped, or timed out in the queue
            with self._lock:
                self._bodies -= 1
            return
        chain = None
        try:
            if self._wrapping:
                chain = Chain(self._wrapping, self._innermost)
                value = chain(ToolCall(call.invocation, call.tool, call.context))
            elif call.bound is not None:
                value = call.tool.call_bound(call.bound, call.context)
            else:
                value = call.tool.run(call.invocation.arguments, call.context)
            result = success_result(call.invocation, value, self._cap(call.tool))
        except BaseException as exc:  # SystemExit from a tool is a failed call, not an exit
            hook = chain.own_failure(exc) if chain is not None else None
            result = (failure_result(call.invocation, call.tool, exc) if hook is None
                      else hook_result(call.invocation, hook, exc))
        finally:
            with self._lock:
                self._bodies -= 1
        self._finish(call, result)

    def _cap(self, tool: ToolDefinition) -> int:
        """How long a result of ``tool`` may be: its own limit, else the agent's."""
        return tool.max_result_chars or self._max_result_chars

    def _innermost(self, call: ToolCall) -> Any:
        """The tool itself, at the centre of the middleware chain."""
        if call.tool.is_async:
            coroutine = _contained(call.tool.arun(call.invocation.arguments, call.context),
                                   call.tool)
            return asyncio.run_coroutine_threadsafe(coroutine, self._ensure_loop()).result()
        return call.tool.run(call.invocation.arguments, call.context)

    # -- async tools: on the loop, cancellable ----------------------------------------------

    def _start_async(self, call: _Call) -> None:
        if self._stopped or not call.begin(sync=False):  # timed out, or stopped, before the
            return                                     # loop got to it
        task = asyncio.ensure_future(self._run_async(call))
        call.task = task
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _run_async(self, call: _Call) -> None:
        try:
            if call.bound is None:
                work = call.tool.arun(call.invocation.arguments, call.context)
            else:
                work = _awaited(call.tool.call_bound(call.bound, call.context))
            result = success_result(call.invocation, await _contained(work, call.tool),
                                    self._cap(call.tool))
        except asyncio.CancelledError as exc:
            if self._stopped or call.context.cancelled.is_set():
                return  # timed out (its result was sent) or the agent is stopping
            result = failure_result(call.invocation, call.tool, exc)  # raised by the tool
        except Exception as exc:
            result = failure_result(call.invocation, call.tool, exc)
        self._finish(call, result)

    def stop(self, wait: bool = True) -> int:
        """Cancel running calls, stop the loop and, with ``wait``, wait for the sync bodies
        until their deadline (at most ``STOP_GRACE_S``), so no thread is left behind where
        Python can end it. A second call only waits (a usage limit ends the run without
        waiting, on the agent's thread; stopping the agent then waits). Returns how many
        calls submitted never began (and now never will)."""
        with self._lock:
            first = not self._stopped
            self._stopped = True
            loop, thread, pool = self._loop, self._thread, self._pool
            running, self._running = self._running, set()
        withheld = sum(call.withhold() for call in running)
        if first:
            now = time.monotonic()
            self._until = now + min(STOP_GRACE_S, max(
                [call.deadline - now if call.deadline is not None else STOP_GRACE_S
                 for call in running if call.thread is not None] or [STOP_GRACE_S]))
            for call in running:
                call.context.cancelled.set()  # subprocess tools kill what they started
                _cancel_task(call)  # for a call on its tool's own loop; on ours, harmless
            self._deadlines.stop()
            if loop is not None and thread is not None:

                def cancel_all() -> None:
                    for task in asyncio.all_tasks(loop):
                        task.cancel()
                    loop.call_soon(loop.stop)

                loop.call_soon_threadsafe(cancel_all)
        if not wait:
            if pool is not None:
                pool.shutdown(wait=False)
            return withheld
        if loop is not None and thread is not None:
            thread.join(timeout=5)
            if not thread.is_alive() and not loop.is_closed():
                loop.close()
        if pool is not None:
            left = pool.shutdown(wait=True, until=self._until)
            if left:
                logger.warning("agent {}: {} sync tool call(s) still running (past their "
                               "deadline, or the stop's {} s grace); their threads were given "
                               "up and finish on their own", self._agent, len(left),
                               STOP_GRACE_S)
        return withheld

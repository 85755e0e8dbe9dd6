"""ToolRunner: runs an agent's tool calls off its mailbox thread, in parallel, with timeouts.

Sync tools run in a bounded worker pool and post their own result; async tools run on an asyncio
loop on its own thread, where they can be cancelled. Sync calls' deadlines go into a table that a
poller on the loop sweeps every ``_SWEEP_S`` while any are pending, so starting a call never has
to wake another thread (that wake-up cost ~80 us per call on the reference machine). Pool and
loop start on first use, so an idle agent costs no threads. Results come back to the agent as
events, in whatever order calls finish.

A sync tool that ignores its timeout cannot be interrupted by Python: its call gets a TIMEOUT
result when the deadline passes, and its thread is given up (it no longer counts against
``max_parallel_tools``, so healthy calls keep running) and left to finish on its own (tools that
run subprocesses kill them instead). A call still queued when its deadline passes never starts.

Whatever a tool raises, ``SystemExit`` and ``KeyboardInterrupt`` included, is a failed result
(INTERNAL) and the runtime goes on: no exception from a tool can kill a worker or the loop.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Coroutine, Sequence
from typing import Any

from loguru import logger
from pydantic import BaseModel
from pydantic_core import to_jsonable_python

from autobyteus_like.agent.worker_pool import WorkerPool
from autobyteus_like.errors import ToolArgumentError, ToolFailure
from autobyteus_like.events import AgentEvent, ToolResultReceived
from autobyteus_like.tools.context import ToolContext
from autobyteus_like.tools.definition import ToolDefinition
from autobyteus_like.tools.invocation import ErrorCode, ToolInvocation, ToolResult
from autobyteus_like.tools.middleware import Middleware, ToolCall, run_with_middleware

__all__ = ["ToolRunner"]

_SWEEP_S = 0.05


_PLAIN = frozenset({str, int, float, bool, type(None)})


def _jsonable(value: Any) -> Any:
    if type(value) in _PLAIN:
        return value
    try:
        return to_jsonable_python(value)
    except Exception:  # anything pydantic cannot serialise is shown as text
        try:
            return str(value)
        except Exception:  # not even that: say what it was
            return f"<a {type(value).__name__} that cannot be shown>"


async def _awaited(value: Any) -> Any:
    """The value, awaited if the tool returned a coroutine."""
    return await value if asyncio.iscoroutine(value) else value


def _outcome(invocation: ToolInvocation, value: Any) -> ToolResult:
    """A success result; its content is JSON by construction (``_jsonable``), so the model is
    built without validating it a second time."""
    return ToolResult.model_construct(invocation_id=invocation.id, tool_name=invocation.name,
                                      status="success", content=_jsonable(value), error=None)


def _failure(invocation: ToolInvocation, tool: ToolDefinition, exc: BaseException
             ) -> ToolResult:
    if isinstance(exc, ToolFailure):
        return ToolResult.failure(invocation, exc.code, exc.message, suggestion=exc.suggestion,
                                  recoverable=exc.recoverable)
    if isinstance(exc, ToolArgumentError):
        return ToolResult.failure(invocation, ErrorCode.INVALID_ARGS, str(exc))
    return ToolResult.failure(
        invocation, ErrorCode.INTERNAL, f"{tool.name} raised {type(exc).__name__}: {exc}"
    )


def _timed_out(invocation: ToolInvocation, tool: ToolDefinition, timeout: float) -> ToolResult:
    return ToolResult.failure(
        invocation, ErrorCode.TIMEOUT, f"{tool.name} did not finish within {timeout:g} s",
        suggestion="simplify the operation or split it into smaller calls",
    )


async def _contained(work: Coroutine[Any, Any, Any], tool: ToolDefinition) -> Any:
    """Await a tool's coroutine on the loop; a ``BaseException`` it raises (``SystemExit``,
    ``KeyboardInterrupt``) would stop the loop itself, so it becomes an ordinary failure."""
    try:
        return await work
    except (asyncio.CancelledError, Exception):
        raise
    except BaseException as exc:
        raise ToolFailure(ErrorCode.INTERNAL,
                          f"{tool.name} raised {type(exc).__name__}: {exc}") from exc


class _Call:
    """One call whose result is delivered exactly once: by the tool, or by its timeout."""

    __slots__ = ("_lock", "_settled", "bound", "context", "invocation", "thread", "tool")

    def __init__(self, invocation: ToolInvocation, tool: ToolDefinition,
                 context: ToolContext, bound: BaseModel | None) -> None:
        self.invocation = invocation
        self.tool = tool
        self.context = context
        self.bound = bound
        self._lock = threading.Lock()
        self._settled = False
        self.thread: threading.Thread | None = None
        """The pool thread running the body, once it started."""

    def settle(self) -> bool:
        """True for the first caller only."""
        with self._lock:
            first, self._settled = not self._settled, True
            return first

    def begin(self) -> bool:
        """Claim the call for the current thread; False if it already timed out in the queue."""
        with self._lock:
            if self._settled:
                return False
            self.thread = threading.current_thread()
            return True


class ToolRunner:
    """Executes calls and posts ``ToolResultReceived`` events through ``post``."""

    def __init__(self, agent: str, post: Callable[[AgentEvent], None], max_workers: int,
                 middleware: Sequence[Middleware] = ()) -> None:
        self._agent = agent
        self._post = post
        self._middleware = tuple(middleware)
        self._max_workers = max_workers
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._pool: WorkerPool | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        """Strong references: the loop keeps only weak ones to running tasks."""
        self._lock = threading.Lock()
        self._stopped = False
        self._sync_bodies = 0  # sync tool bodies still running in the pool
        self._deadlines: dict[_Call, tuple[float, float]] = {}  # call -> (deadline, timeout)
        self._sweeping = False

    def submit(self, invocation: ToolInvocation, tool: ToolDefinition, timeout: float | None,
               context: ToolContext, bound: BaseModel | None = None) -> None:
        """Start one call now; its result arrives later as an event. ``bound`` is the arguments
        already validated (used as is unless middleware may change them). With middleware,
        every call runs its chain on a pool thread (an async body still runs on the loop)."""
        if tool.is_async and not self._middleware:
            self._ensure_loop().call_soon_threadsafe(
                self._start_async, invocation, tool, timeout, context, bound
            )
            return
        call = _Call(invocation, tool, context, bound)
        pool = self._ensure_pool()
        start_sweeper = False
        with self._lock:
            self._sync_bodies += 1
            if timeout is not None:
                self._deadlines[call] = (time.monotonic() + timeout, timeout)
                start_sweeper, self._sweeping = not self._sweeping, True
        pool.submit(self._run_sync, call)
        if start_sweeper:
            self._ensure_loop().call_soon_threadsafe(self._start_sweeper)

    def _ensure_pool(self) -> WorkerPool:
        with self._lock:
            if self._stopped:
                raise RuntimeError("the tool runner has stopped")
            if self._pool is None:
                self._pool = WorkerPool(f"{self._agent}-tool", self._max_workers)
            return self._pool

    def _ensure_loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._stopped:
                raise RuntimeError("the tool runner has stopped")
            if self._loop is None:
                self._loop = asyncio.new_event_loop()
                self._thread = threading.Thread(
                    target=self._loop.run_forever, name=f"{self._agent}-tools", daemon=True
                )
                self._thread.start()
            return self._loop

    # -- sync tools: pool thread, timer on the loop ----------------------------------------

    def _run_sync(self, call: _Call) -> None:
        if not call.begin():  # its deadline passed while it waited for a thread
            with self._lock:
                self._sync_bodies -= 1
            return
        try:
            if self._middleware:
                value = run_with_middleware(ToolCall(call.invocation, call.tool, call.context),
                                            self._middleware, self._innermost)
            elif call.bound is not None:
                value = call.tool.call_bound(call.bound, call.context)
            else:
                value = call.tool.run(call.invocation.arguments, call.context)
            result = _outcome(call.invocation, value)
        except BaseException as exc:  # SystemExit from a tool is a failed call, not an exit
            result = _failure(call.invocation, call.tool, exc)
        finally:
            with self._lock:
                self._sync_bodies -= 1
                self._deadlines.pop(call, None)
        if call.settle():
            self._post(ToolResultReceived(agent=self._agent, result=result))

    def _innermost(self, call: ToolCall) -> Any:
        """The tool itself, at the centre of the middleware chain."""
        if call.tool.is_async:
            coroutine = _contained(call.tool.arun(call.invocation.arguments, call.context),
                                   call.tool)
            return asyncio.run_coroutine_threadsafe(coroutine, self._ensure_loop()).result()
        return call.tool.run(call.invocation.arguments, call.context)

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        """Run ``work`` as a task on the loop, held until it is done."""
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _start_sweeper(self) -> None:
        self._spawn(self._sweep())

    async def _sweep(self) -> None:
        """Give overdue sync calls their TIMEOUT result; stop when none are pending."""
        while True:
            await asyncio.sleep(_SWEEP_S)
            now = time.monotonic()
            with self._lock:
                overdue = [(c, t) for c, (d, t) in self._deadlines.items() if d <= now]
                for call, _ in overdue:
                    del self._deadlines[call]
                if not self._deadlines and not overdue:
                    self._sweeping = False
                    return
            # Settle every overdue call before any slot is given back, so a queued call that
            # is overdue too can never start on the thread that replaces a stuck one.
            settled = [(call, timeout) for call, timeout in overdue if call.settle()]
            for call, timeout in settled:
                if call.thread is not None and self._pool is not None:
                    self._pool.abandon(call.thread)  # give its slot to the next call
                result = _timed_out(call.invocation, call.tool, timeout)
                self._post(ToolResultReceived(agent=self._agent, result=result))

    # -- async tools: on the loop, cancellable ----------------------------------------------

    def _start_async(self, invocation: ToolInvocation, tool: ToolDefinition,
                     timeout: float | None, context: ToolContext,
                     bound: BaseModel | None) -> None:
        self._spawn(self._run_async(invocation, tool, timeout, context, bound))

    async def _run_async(self, invocation: ToolInvocation, tool: ToolDefinition,
                         timeout: float | None, context: ToolContext,
                         bound: BaseModel | None) -> None:
        try:
            work = tool.arun(invocation.arguments, context) if bound is None else _awaited(
                tool.call_bound(bound, context))
            value = await asyncio.wait_for(_contained(work, tool), timeout)
            result = _outcome(invocation, value)
        except TimeoutError:
            assert timeout is not None
            result = _timed_out(invocation, tool, timeout)
        except asyncio.CancelledError:
            return  # the agent is stopping; nobody waits for this result
        except Exception as exc:
            result = _failure(invocation, tool, exc)
        self._post(ToolResultReceived(agent=self._agent, result=result))

    def stop(self) -> None:
        """Cancel running calls, stop the loop and leave no thread behind (where Python can)."""
        with self._lock:
            self._stopped = True
            loop, thread, pool, stuck = self._loop, self._thread, self._pool, self._sync_bodies
        if loop is not None and thread is not None:

            def cancel_all() -> None:
                for task in asyncio.all_tasks(loop):
                    task.cancel()
                loop.call_soon(loop.stop)

            loop.call_soon_threadsafe(cancel_all)
            thread.join(timeout=5)
            if not thread.is_alive():
                loop.close()
        if pool is not None:
            if stuck:
                logger.warning("agent {}: {} sync tool call(s) still running; their threads "
                               "finish on their own", self._agent, stuck)
            pool.shutdown(wait=not stuck)

"""Tools that run as Ray tasks: ``@tool(resources={"num_gpus": 1})`` records the resources; a
member hosted on Ray gets each such tool through ``as_ray_task``.

The definition keeps its name, schema and policies; only its function is replaced by one that
submits the original to Ray with those resources and waits for it on the agent's tool thread.
So the agent's tool runner applies the same approval, timeout and result ordering as to any
tool; when it cancels the call (its timeout passed, the agent stops), the task is cancelled
too. Where Ray is not running (a local team), the function runs in-process as usual.
"""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import sys
from collections.abc import Callable
from typing import Any

from autobyteus_like.errors import ToolFailure
from autobyteus_like.tools._context import CancelFlag, ToolContext
from autobyteus_like.tools._definition import ToolDefinition
from autobyteus_like.tools._invocation import ErrorCode

__all__ = ["as_ray_task", "run_tool_body"]

_CONTEXT = "_ray_tool_context"
_CANCEL_POLL_S = 0.05
"""How often a waiting call looks at its cancel flag (a plain flag: nothing to wait on)."""


def run_tool_body(function: Callable[..., Any], values: dict[str, Any]) -> tuple[Any, ...]:
    """The task: run the tool's own function; what it raised travels back as data, so the
    agent reports it exactly as it would a local tool's."""
    try:
        value = function(**values)
        if inspect.isawaitable(value):
            value = asyncio.run(_awaited(value))
        return ("ok", value)
    except ToolFailure as exc:
        return ("failure", str(exc.code), exc.message, exc.suggestion, exc.recoverable)
    except BaseException as exc:  # SystemExit from a tool is a failed call, as locally
        return ("raised", type(exc).__name__, str(exc))


async def _awaited(value: Any) -> Any:
    return await value


def as_ray_task(definition: ToolDefinition) -> ToolDefinition:
    """``definition`` whose body runs as a Ray task needing its recorded resources (a tool
    without resources, or already wrapped, is returned as it is)."""
    resources = definition.resources
    if resources is None or definition.context_parameter == _CONTEXT:
        return definition
    original = definition.function
    context_parameter = definition.context_parameter
    remote: list[Any] = []  # the Ray remote function, made on first use in each process

    def run_as_ray_task(**values: Any) -> Any:
        context: ToolContext = values.pop(_CONTEXT, None) or ToolContext()
        if context_parameter is not None:  # the task gets a copy; cancelling is ours
            values[context_parameter] = dataclasses.replace(context, cancelled=CancelFlag())
        ray = sys.modules.get("ray")
        if ray is None or not ray.is_initialized():
            outcome = run_tool_body(original, values)
        else:
            if not remote:
                remote.append(ray.remote(run_tool_body))
            task = remote[0].options(max_retries=0, **resources)
            outcome = _wait(ray, task.remote(original, values), context, definition.name)
        return _unpacked(outcome, definition.name)

    return dataclasses.replace(definition, function=run_as_ray_task, context_parameter=_CONTEXT)


def _wait(ray: Any, ref: Any, context: ToolContext, name: str) -> tuple[Any, ...]:
    while True:
        ready, _ = ray.wait([ref], timeout=_CANCEL_POLL_S)
        if ready:
            try:
                outcome: tuple[Any, ...] = ray.get(ref)
            except Exception as exc:  # the worker died, the task was cancelled, ...
                raise ToolFailure(ErrorCode.INTERNAL, f"{name}'s Ray task failed: "
                                  f"{type(exc).__name__}") from None
            return outcome
        if context.cancelled.is_set():
            ray.cancel(ref, force=True)  # a task stuck in native code only stops this way
            raise ToolFailure(ErrorCode.INTERNAL, f"{name} was cancelled")


def _unpacked(outcome: tuple[Any, ...], name: str) -> Any:
    kind = outcome[0]
    if kind == "ok":
        return outcome[1]
    if kind == "failure":
        _, code, message, suggestion, recoverable = outcome
        raise ToolFailure(code, message, suggestion=suggestion, recoverable=recoverable)
    _, type_name, text = outcome
    raise ToolFailure(ErrorCode.INTERNAL, f"{name} raised {type_name}: {text}")

"""``js.exec`` (seed 001 §3.3): JavaScript in a V8 isolate, in a supervised child process.

The isolate (``mini-racer``) runs in its own process (``_js_child``) under the same supervisor
as ``python.exec`` (``_process.run_process``): a fatal out-of-memory in V8 takes down the
child, never the agent, and whatever happens the child is killed at the deadline. Inside, the
script sees plain V8: no file system, network, process or Python access; ``input_json`` is a
global; ``console.log`` (and ``info``/``warn``/``error``/``debug``) lines come back as ``logs``;
the last expression's value comes back as JSON in ``result``.

Limits: ``timeout_ms`` (at most the sandbox's ``timeout_s``) interrupts V8, and the supervisor
kills the child a moment later if V8 did not stop; V8's heap is capped at ``max_memory_bytes``
(an endless allocation is QUOTA_EXCEEDED); logs and the result within ``max_output_bytes``.
A script that throws is a TOOL_ERROR with its message. The tool is ``dangerous`` like
``python.exec`` (approval by default): the isolate is a strong boundary, but CPU and memory of
the machine are still spent.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from typing import Any

from autobyteus_like.errors import ToolFailure
from autobyteus_like.tools._context import ToolContext
from autobyteus_like.tools._decorator import tool
from autobyteus_like.tools._definition import ToolDefinition
from autobyteus_like.tools._invocation import ErrorCode
from autobyteus_like.tools.builtin import _js_child
from autobyteus_like.tools.builtin._process import run_process

__all__ = ["DEFAULT_MAX_MEMORY", "js_tool"]

DEFAULT_MAX_MEMORY = 128 * 1024 * 1024
"""V8's heap limit for one call, in bytes."""
_START_S = 5.0
"""Time the child may take to start (an interpreter and an isolate) beyond the script's own."""
_MAX_CODE = 1_000_000


def _outcome(report: dict[str, Any], seconds: float, max_memory: int) -> dict[str, object]:
    error = report.get("error")
    logs = [str(line) for line in report.get("logs", [])]
    if error is None:
        return {"result": json.loads(report["result"]), "logs": logs}
    if error == "timeout":
        raise ToolFailure(ErrorCode.TIMEOUT,
                          f"the script ran longer than {seconds:g} s and was stopped",
                          suggestion="make it faster, or look for an endless loop")
    if error == "memory":
        raise ToolFailure(ErrorCode.QUOTA_EXCEEDED,
                          f"the script used more than {max_memory} bytes of memory and was "
                          "stopped", suggestion="work on less data at a time")
    if error == "result":
        raise ToolFailure(ErrorCode.QUOTA_EXCEEDED, str(report.get("message")),
                          suggestion="return less, or a summary of it")
    logged = f" (logs: {' | '.join(logs)[-1000:]})" if logs else ""
    raise ToolFailure(ErrorCode.TOOL_ERROR, f"the script threw: {report.get('message')}"
                      f"{logged}", suggestion="fix the script and run it again")


def _crash(result: dict[str, object], max_memory: int) -> ToolFailure:
    """What a child that died without a report amounts to."""
    stderr = str(result.get("stderr", ""))
    if "out of memory" in stderr.lower() or "heap limit" in stderr.lower() or \
            result.get("exit_code") in (-6, -9, 134, 137):
        return ToolFailure(ErrorCode.QUOTA_EXCEEDED,
                           f"the script ran out of memory ({max_memory}-byte limit) and its "
                           "process died", suggestion="work on less data at a time")
    return ToolFailure(ErrorCode.INTERNAL,
                       f"the JavaScript process failed (exit {result.get('exit_code')}): "
                       f"{stderr[-2000:]}")


def js_tool(max_memory_bytes: int = DEFAULT_MAX_MEMORY) -> ToolDefinition:
    """A fresh definition of ``js.exec`` (V8's heap capped at ``max_memory_bytes``)."""

    @tool(name="js.exec", category="exec", dangerous=True)
    def js_exec(code: str, ctx: ToolContext, input_json: Any = None, timeout_ms: int = 10000
                ) -> dict[str, object]:
        """Run JavaScript in an isolated V8 engine (no files, network or processes) and
        return the value of its last expression as JSON, with what it logged.

        Args:
            code: The script; its last expression is the result (e.g. 'input_json.a + 1').
            input_json: Any JSON value, given to the script as the global input_json.
            timeout_ms: Stop the script after this many milliseconds.
        """
        if timeout_ms <= 0:
            raise ToolFailure(ErrorCode.INVALID_ARGS, "timeout_ms must be positive")
        if len(code) > _MAX_CODE:
            raise ToolFailure(ErrorCode.QUOTA_EXCEEDED,
                              f"code is over {_MAX_CODE} characters")
        seconds = min(timeout_ms / 1000, ctx.sandbox.timeout_s)
        try:
            program = json.dumps({"code": code, "input_json": input_json, "timeout_s": seconds,
                                  "max_memory": max_memory_bytes,
                                  "max_output": ctx.sandbox.max_output_bytes})
        except (TypeError, ValueError) as exc:
            raise ToolFailure(ErrorCode.INVALID_ARGS,
                              f"input_json is not JSON: {exc}") from None
        with tempfile.TemporaryDirectory(prefix="autobyteus-js-") as folder:
            path = os.path.join(folder, "program.json")
            with open(path, "w", encoding="utf-8") as file:
                file.write(program)
            argv = [sys.executable, "-I", _js_child.__file__, path]
            # the child keeps logs and result each within max_output_bytes; its report (JSON,
            # escaped) may be a few times that, and must arrive whole
            report_room = ctx.sandbox.model_copy(
                update={"max_output_bytes": 8 * ctx.sandbox.max_output_bytes + 65536})
            try:
                result = run_process(argv, ctx.sandbox.roots[0], report_room,
                                     seconds + _START_S, cancel=ctx.cancelled)
            except ToolFailure as exc:  # named as the tool, not as the interpreter it runs
                exc.message = exc.message.replace(sys.executable, "js.exec's V8 process")
                exc.args = (exc.message,)
                raise
        lines = str(result["stdout"]).strip().splitlines()
        try:
            report = json.loads(lines[-1]) if lines else None
        except ValueError:
            report = None
        if not isinstance(report, dict):
            raise _crash(result, max_memory_bytes)
        return _outcome(report, seconds, max_memory_bytes)

    return js_exec

"""js.exec: a real V8 isolate in a supervised child: results as JSON, logs captured, and
endless loops, endless allocation and throws end as TIMEOUT, QUOTA_EXCEEDED, TOOL_ERROR."""

import os
from collections.abc import Callable
from typing import Any

import pytest

from autobyteus_like import ErrorCode
from autobyteus_like.tools import ToolFailure, builtin_tools
from autobyteus_like.tools.builtin._process_supervisor import descendants

pytest.importorskip("py_mini_racer", reason="js.exec needs the js extra")


def failure(call, *args, **kwargs) -> ToolFailure:
    with pytest.raises(ToolFailure) as caught:
        call(*args, **kwargs)
    return caught.value


def test_schema_and_danger():
    definition = builtin_tools().get("js.exec")
    schema = definition.json_schema()
    assert set(schema["properties"]) == {"code", "input_json", "timeout_ms"}
    assert schema["required"] == ["code"]
    assert definition.dangerous and definition.category == "exec"


def test_result_logs_and_input(run):
    done = run("js.exec", code="console.log('sum', input_json.a + input_json.b); "
                               "console.error({x: [1]}); ({total: input_json.a * 2, ok: true})",
               input_json={"a": 20, "b": 1})
    assert done == {"result": {"total": 40, "ok": True}, "logs": ['sum 21', '{"x":[1]}']}
    assert run("js.exec", code="let x = 1")["result"] is None  # no value: null


def test_the_isolate_has_no_way_out(run):
    names = ["require", "process", "fetch", "XMLHttpRequest", "Deno", "Bun", "WebAssembly"]
    probe = "({" + ", ".join(f"{name}: typeof {name}" for name in names) + "})"
    seen = run("js.exec", code=probe)["result"]
    assert {name: kind for name, kind in seen.items() if kind != "undefined"} == \
        {"WebAssembly": "object"}  # computes only, like the rest of the language


def test_a_throw_is_a_tool_failure_with_its_message(run):
    error = failure(run, "js.exec", code="console.log('before'); throw new Error('nope here')")
    assert error.code == ErrorCode.TOOL_ERROR
    assert "nope here" in error.message and "before" in error.message
    assert failure(run, "js.exec", code="this is not js").code == ErrorCode.TOOL_ERROR


def _started_by(call: Callable[[], Any]) -> tuple[Any, set[int]]:
    """What ``call`` returns and the processes it left (the suite's own servers, started
    before it, are not its)."""
    before = set(descendants(os.getpid()))
    return call(), set(descendants(os.getpid())) - before


def test_an_endless_loop_is_a_timeout_and_leaves_no_process(run):
    error, left = _started_by(lambda: failure(run, "js.exec", code="while (true) {}",
                                              timeout_ms=500))
    assert error.code == ErrorCode.TIMEOUT
    assert left == set()


def test_endless_allocation_is_quota_exceeded(run):
    code = "const a = []; while (true) { a.push(new Array(100000).fill(1.5)); }"
    error, left = _started_by(lambda: failure(run, "js.exec", code=code, timeout_ms=8000))
    assert error.code == ErrorCode.QUOTA_EXCEEDED
    assert left == set()


def test_output_limits_and_bad_arguments(run):
    huge = failure(run, "js.exec", limits={"max_output_bytes": 1000}, code="'x'.repeat(5000)")
    assert huge.code == ErrorCode.QUOTA_EXCEEDED
    logs = run("js.exec", limits={"max_output_bytes": 1000},
               code="for (let i = 0; i < 10000; i++) console.log('line ' + i); 1")["logs"]
    assert sum(len(line) for line in logs) <= 1000
    assert failure(run, "js.exec", code="1", timeout_ms=0).code == ErrorCode.INVALID_ARGS
    assert failure(run, "js.exec", code="1;" + " " * 1_000_000).code == \
        ErrorCode.QUOTA_EXCEEDED  # refused before any process starts


def test_a_cancelled_call_stops_at_once_and_leaves_no_process(tmp_path):
    from autobyteus_like.tools import SandboxPolicy, ToolContext
    from autobyteus_like.tools._context import CancelFlag

    cancel = CancelFlag()
    cancel.set()  # the agent stopped (or the call's deadline passed) as it started
    context = ToolContext(sandbox=SandboxPolicy(roots=[tmp_path], timeout_s=600),
                          cancelled=cancel)
    error, left = _started_by(lambda: failure(builtin_tools().get("js.exec").run,
                                              {"code": "while (true) {}",
                                               "timeout_ms": 600000}, context))
    assert error.code == ErrorCode.TIMEOUT and "cancelled" in error.message
    assert left == set()

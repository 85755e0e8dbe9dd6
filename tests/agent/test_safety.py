"""Safety in the runtime: approval for dangerous tools, the network flag, middleware, sandbox
per agent and per tool, redaction of events, logs and the session log."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import yaml
from loguru import logger

from autobyteus_like import Agent, AgentConfig, ScriptedLLM, TeamConfig, tool
from autobyteus_like.events import ApprovalRequested, ToolCallParsed, ToolResultReceived
from autobyteus_like.tools import SandboxPolicy, ToolContext, builtin_tools
from tests.agent.event_waits import wait_for


def call(name: str, **arguments: object) -> str:
    return json.dumps({"name": name, "arguments": arguments})


def shown(llm: ScriptedLLM, request: int = 1) -> list[dict]:
    text = llm.requests[request].messages[-1].content
    return [json.loads(line)["tool_result"] for line in text.splitlines()[1:]]


@tool(dangerous=True)
def wipe(target: str) -> str:
    """Dangerous on purpose."""
    return f"wiped {target}"


@tool(needs_network=True)
def fetch(url: str) -> str:
    """Pretends to fetch."""
    return f"fetched {url}"


@tool(result_allowlist=("status",), masked_arguments=("token",))
def deploy(service: str, token: str) -> dict[str, str]:
    """Deploy with a secret."""
    return {"status": "ok", "internal_url": f"http://10.0.0.1/{service}", "token_echo": token}


def test_dangerous_tools_wait_for_approval_even_when_auto_executing():
    llm = ScriptedLLM([call("wipe", target="/tmp/x"), "done"])
    with Agent(AgentConfig(name="a", llm=llm, tools=[wipe], tool_format="json")) as agent:
        events = agent.events()
        reply = agent.send("go")
        [request] = wait_for(events, ApprovalRequested)
        agent.deny(request.invocation.id, "not today")
        assert reply.result(10) == "done"
    assert shown(llm)[0]["content"]["code"] == "DENIED"


def test_the_network_flag_is_enforced_by_the_sandbox():
    for allowed, expected in ((False, "PERMISSION_DENIED"), (True, None)):
        llm = ScriptedLLM([call("fetch", url="https://example.org"), "done"])
        config = AgentConfig(name="n", llm=llm, tools=[fetch], tool_format="json",
                             sandbox=SandboxPolicy(allow_network=allowed))
        with Agent(config) as agent:
            agent.run("go", timeout=10)
        result = shown(llm)[0]
        assert (result["content"]["code"] if expected else result["content"]) == (
            expected or "fetched https://example.org")


def test_middleware_wraps_every_call_in_order_and_can_change_or_answer_it(tmp_path):
    seen: list[str] = []

    def logging_mw(call, next):
        seen.append(f"log before {call.tool.name}")
        result = next(call)
        seen.append(f"log after {call.tool.name}")
        return result

    def rewrite(call, next):
        if call.tool.name == "double":
            return next(call.replace(arguments={"n": call.arguments["n"] + 1}))
        return next(call)

    def cache(call, next):
        return "from cache" if call.tool.name == "expensive" else next(call)

    @tool
    def double(n: int) -> int:
        """Double n."""
        return 2 * n

    @tool
    async def expensive() -> str:
        """Never reached: the cache answers."""
        raise AssertionError("the cache should have answered")

    @tool
    async def slow_async(ctx: ToolContext) -> str:
        """Async tools run inside the chain too; they get the context."""
        return f"async for {ctx.agent}"

    llm = ScriptedLLM([f"[{call('double', n=4)}, {call('expensive')}, {call('slow_async')}]",
                       "ok"])
    config = AgentConfig(name="mw", llm=llm, tools=[double, expensive, slow_async],
                         tool_format="json", tool_execution="sequential",
                         middleware=[logging_mw, rewrite, cache])
    with Agent(config) as agent:
        agent.run("go", timeout=10)
    assert [r["content"] for r in shown(llm)] == [10, "from cache", "async for mw"]
    assert seen == ["log before double", "log after double", "log before expensive",
                    "log after expensive", "log before slow_async", "log after slow_async"]


def test_tools_get_the_sandbox_of_their_agent_or_their_own_override(tmp_path):
    @tool
    def where(ctx: ToolContext) -> str:
        """Report the sandbox root."""
        return str(ctx.sandbox.roots[0])

    special = tmp_path / "special"
    special.mkdir()
    llm = ScriptedLLM([call("where"), "ok", call("where"), "ok"])
    config = AgentConfig(name="s", llm=llm, tools=[where], tool_format="json",
                         sandbox=SandboxPolicy(roots=[tmp_path]))
    with Agent(config) as agent:
        agent.run("go", timeout=10)
    with Agent(config.model_copy(update={"tool_sandboxes": {
            "where": SandboxPolicy(roots=[special])}})) as agent:
        agent.run("again", timeout=10)
    assert shown(llm, 1)[0]["content"] == str(tmp_path)
    assert shown(llm, 3)[0]["content"] == str(special)


def test_redaction_in_events_logs_and_session_log_but_not_for_the_llm(tmp_path):
    lines: list[str] = []
    sink = logger.add(lines.append, level="DEBUG", format="{message}")
    logger.enable("autobyteus_like")
    try:
        llm = ScriptedLLM([call("deploy", service="web", token="s3cr3t"), "deployed"])
        log = tmp_path / "logs" / "session.md"
        config = AgentConfig(name="ops", llm=llm, tools=[deploy], tool_format="json",
                             session_log=log)
        with Agent(config) as agent:
            events = agent.events()
            agent.run("ship it", timeout=10)
            [parsed] = wait_for(events, ToolCallParsed)
            [result] = wait_for(events, ToolResultReceived)
    finally:
        logger.remove(sink)
        logger.disable("autobyteus_like")
    assert parsed.invocation.arguments == {"service": "web", "token": "[redacted]"}
    assert result.result.content == {"status": "ok", "internal_url": "[redacted]",
                                     "token_echo": "[redacted]"}
    [full] = shown(llm)  # the LLM gets everything
    assert full["content"]["token_echo"] == "s3cr3t"
    text = log.read_text()
    assert "s3cr3t" not in text and "10.0.0.1" not in text
    blocks = [yaml.safe_load(b.split("```")[0]) for b in text.split("```yaml\n")[1:]]
    assert [b["type"] for b in blocks] == ["tool_call", "tool_result"]
    assert blocks[0]["args"] == {"service": "web", "token": "[redacted]"}
    logged = "\n".join(lines)
    assert "runs deploy" in logged and "s3cr3t" not in logged


def test_the_session_log_survives_a_killed_process(tmp_path):
    log = tmp_path / "session.jsonl"
    script = textwrap.dedent(f"""
        import json, os, signal
        from autobyteus_like import Agent, AgentConfig, ScriptedLLM, tool

        @tool
        def step(n: int) -> int:
            "Counts; the third call kills the process."
            if n == 3:
                os.kill(os.getpid(), signal.SIGKILL)
            return n

        calls = [json.dumps({{"name": "step", "arguments": {{"n": n}}}}) for n in (1, 2, 3)]
        llm = ScriptedLLM(calls + ["never"])
        config = AgentConfig(name="k", llm=llm, tools=[step], tool_format="json",
                             session_log={str(log)!r}, session_log_format="jsonl")
        with Agent(config) as agent:
            agent.run("go", timeout=30)
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == -9  # killed mid-run
    records = [json.loads(line) for line in log.read_text().splitlines()]
    assert [(r["type"], r.get("content")) for r in records] == [
        ("tool_call", None), ("tool_result", 1), ("tool_call", None), ("tool_result", 2),
        ("tool_call", None)]


def test_builtin_tools_by_name_with_a_sandbox_from_yaml(tmp_path):
    (tmp_path / "notes.txt").write_text("hello\n")
    first = f'[{call("fs.read", path="notes.txt")}, {call("fs.write", path="../x", content="")}]'
    data = yaml.safe_load(textwrap.dedent(f"""
        name: t
        coordinator: reader
        members:
          - name: reader
            tool_format: json
            sandbox: {{roots: [{str(tmp_path)!r}], max_read_bytes: 1000}}
            tools: [fs.read, fs.write]
            llm:
              provider: scripted
              responses:
                - '{first}'
                - read it
    """))
    config = TeamConfig.from_data(data, tools=builtin_tools())
    llm = config.members[0].llm
    from autobyteus_like import AgentTeam
    with AgentTeam(config, tools=builtin_tools()) as team:
        assert team.run("read the notes", timeout=10) == "read it"
    read, escape = shown(llm)
    assert read["content"]["content"] == "hello\n"
    assert escape["content"]["code"] == "PERMISSION_DENIED"
    assert not (tmp_path.parent / "x").exists()

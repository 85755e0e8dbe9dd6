"""MCP tool calls through the project against the official SDK client alone, same run.

    python benchmarks/mcp_benchmark.py                   # the Python SDK server (about 40 s)
    AUTOBYTEUS_MCP_NPM_DIR=DIR python benchmarks/mcp_benchmark.py   # + the npm reference server

"bare" is ``await client.call_tool(...)`` on the SDK's ``Client`` in the caller's own event
loop. "project" is what an agent does for each call to the ``ToolDefinition`` an
``MCPToolset`` made of the same tool: its ``ToolRunner`` is handed the call from the agent's
thread, starts it on the toolset's loop, and the result event comes back to that thread;
on the way, validation against the server's schema and the result made into what the LLM is
shown. "no hop" is ``await tool.arun(arguments)`` on the toolset's own loop (the project's
work without any thread hand-off); "8 at a time" runs calls concurrently, as an agent runs a
response's parallel calls. Both call one echo tool sequentially, against servers started
from the same program (over stdio each client has its own process; over HTTP both share one);
rounds alternate between the two so that drift on a shared machine hits both alike. The server
set start-up is the time from ``acquire`` to every server's tools being listed, for servers
started together and one after another.
"""

from __future__ import annotations

import asyncio
import os
import queue
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from autobyteus_like.agent._deadlines import Deadlines
from autobyteus_like.agent._tool_runner import ToolRunner
from autobyteus_like.events import AgentEvent
from autobyteus_like.mcp import MCPToolset
from autobyteus_like.tools._context import ToolContext
from autobyteus_like.tools._definition import ToolDefinition
from autobyteus_like.tools._invocation import ToolInvocation
from autobyteus_like.tools._registry import acquire_all
from autobyteus_like.tools._sandbox import SandboxPolicy

ROUNDS = 9
CALLS = 300
"""Calls per measurement, fewer for a slow server (a measurement takes about a second)."""

SERVER = '''
import socket, sys
import anyio
from mcp.server.mcpserver import MCPServer
server = MCPServer("bench", log_level="WARNING")

@server.tool()
def echo(message: str) -> str:
    """Return the message."""
    return message

if sys.argv[1] == "stdio":
    server.run("stdio")
else:
    import uvicorn
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    print(sock.getsockname()[1], flush=True)
    config = uvicorn.Config(server.streamable_http_app(), log_level="warning")
    anyio.run(lambda: uvicorn.Server(config).serve(sockets=[sock]))
'''


def _everything() -> str | None:
    folder = os.environ.get("AUTOBYTEUS_MCP_NPM_DIR")
    if not folder:
        return None
    entry = (Path(folder) / "node_modules" / "@modelcontextprotocol" / "server-everything" /
             "dist" / "index.js")
    return str(entry) if entry.is_file() else None


async def _rate(call: Callable[[], Awaitable[Any]], calls: int, parallel: int = 1) -> float:
    """Calls per second for ``calls`` calls, ``parallel`` at a time."""
    started = time.perf_counter()
    for _ in range(calls // parallel):
        if parallel == 1:
            await call()
        else:
            await asyncio.gather(*(call() for _ in range(parallel)))
    return (calls // parallel) * parallel / (time.perf_counter() - started)


class _AgentSide:
    """An agent's tool runner, driven the way the agent's actor drives it: submit from this
    thread, block until the result event arrives."""

    def __init__(self, definition: ToolDefinition, arguments: dict[str, Any]) -> None:
        self._results: queue.SimpleQueue[AgentEvent] = queue.SimpleQueue()
        # its deadlines are the agent's to fire; none comes due in a benchmark's calls
        self._runner = ToolRunner("bench", self._results.put, Deadlines("bench"), max_workers=8)
        self._definition = definition
        self._arguments = arguments
        self._count = 0
        self._sandbox = SandboxPolicy()  # an agent's, built once

    def rate(self, calls: int, parallel: int = 1) -> float:
        started = time.perf_counter()
        for _ in range(calls // parallel):
            for _ in range(parallel):
                self._count += 1
                call_id = f"call_{self._count}"
                self._runner.submit(ToolInvocation(id=call_id, name=self._definition.name,
                                                   arguments=self._arguments),
                                    self._definition, self._definition.timeout_s,
                                    ToolContext(agent="bench", invocation_id=call_id,
                                                sandbox=self._sandbox))
            for _ in range(parallel):
                event: Any = self._results.get()
                assert event.result.error is None, event.result.error
        return (calls // parallel) * parallel / (time.perf_counter() - started)

    def stop(self) -> None:
        self._runner.stop()


def _on_toolset_loop(toolset: MCPToolset, call: Callable[[], Awaitable[Any]],
                     calls: int) -> float:
    """The same calls made on the toolset's own loop: the project without the thread hop."""
    session: Any = toolset._session
    rate: float = session.thread.submit(_rate(call, calls)).result()
    return rate


async def _compare(bare_target: Any, toolset: MCPToolset, tool: str,
                   arguments: dict[str, Any]) -> dict[str, float]:
    """Median calls per second of each way, over alternating rounds."""
    from mcp import Client

    definition = {t.name: t for t in toolset.tools()}[f"{toolset.namespace}.{tool}"]
    rates: dict[str, list[float]] = {"bare": [], "project": [], "no hop": [], "bare x8": [],
                                     "project x8": []}
    async with Client(bare_target, cache=None) as client:
        await client.list_tools()

        def bare() -> Awaitable[Any]:
            return client.call_tool(tool, arguments)

        def ours() -> Awaitable[Any]:
            return definition.arun(arguments)

        agent = _AgentSide(definition, arguments)
        try:
            for _ in range(20):  # warm up both paths
                await bare()
                agent.rate(1)
            calls = max(16, min(CALLS, int(await _rate(bare, 16))))
            for _ in range(ROUNDS):
                rates["bare"].append(await _rate(bare, calls))
                rates["project"].append(agent.rate(calls))
                rates["no hop"].append(_on_toolset_loop(toolset, ours, calls))
                rates["bare x8"].append(await _rate(bare, calls, 8))
                rates["project x8"].append(agent.rate(calls, 8))
        finally:
            agent.stop()
    return {way: statistics.median(values) for way, values in rates.items()}


def _row(name: str, rates: dict[str, float]) -> str:
    def overhead(bare: float, ours: float) -> str:
        return f"{100 * (bare / ours - 1):+.0f}%"

    bare, ours, near = rates["bare"], rates["project"], rates["no hop"]
    return (f"| {name} | {bare:,.0f} | {ours:,.0f} ({overhead(bare, ours)}) | "
            f"{near:,.0f} ({overhead(bare, near)}) | {rates['bare x8']:,.0f} | "
            f"{rates['project x8']:,.0f} ({overhead(rates['bare x8'], rates['project x8'])}) | "
            f"{1e6 / bare:,.0f} / {1e6 / ours:,.0f} |")


def _stdio(name: str, command: str, args: list[str], tool: str,
           arguments: dict[str, Any]) -> str:
    from mcp import StdioServerParameters

    toolset = MCPToolset.stdio(command, args, name="bench")
    with toolset:
        rates = asyncio.run(_compare(StdioServerParameters(command=command, args=args),
                                     toolset, tool, arguments))
    return _row(name, rates)


def _http(name: str, start: list[str], env: dict[str, str] | None, port: int | None,
          tool: str, arguments: dict[str, Any]) -> str:
    server = subprocess.Popen(start, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              text=True, env=env)
    try:
        if port is None:
            assert server.stdout is not None
            port = int(server.stdout.readline())
        else:
            deadline = time.monotonic() + 10
            while socket.socket().connect_ex(("127.0.0.1", port)) != 0:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"{name}: nothing listens on port {port}")
                time.sleep(0.05)
        url = f"http://127.0.0.1:{port}/mcp"
        toolset = MCPToolset.http(url, name="bench", transport="streamable-http")
        with toolset:
            rates = asyncio.run(_compare(url, toolset, tool, arguments))
    finally:
        server.kill()
        server.wait()
    return _row(name, rates)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _startup(servers: list[tuple[str, list[str]]]) -> tuple[float, float]:
    """Seconds until every server of the set has listed its tools: all at once, and one after
    another."""
    def toolsets() -> list[MCPToolset]:
        return [MCPToolset.stdio(command, args, name=f"s{i}")
                for i, (command, args) in enumerate(servers)]

    together = toolsets()
    started = time.perf_counter()
    acquire_all(together, "benchmark")
    parallel = time.perf_counter() - started
    for toolset in together:
        toolset.release()
    one_by_one = toolsets()
    started = time.perf_counter()
    for toolset in one_by_one:
        toolset.start()
    sequential = time.perf_counter() - started
    for toolset in one_by_one:
        toolset.stop()
    return parallel, sequential


def main() -> None:
    python = [sys.executable, "-c", SERVER]
    everything = _everything()
    print(f"{ROUNDS} alternating rounds of up to {CALLS} calls each way; medians; calls/s "
          "(overhead against bare)\n")
    print("| server, transport | bare | project | project, no hop | bare, 8 at a time | "
          "project, 8 at a time | µs/call bare / project |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    echo = {"message": "hello"}
    print(_stdio("Python SDK server, stdio", python[0], [*python[1:], "stdio"], "echo", echo))
    print(_http("Python SDK server, streamable HTTP", [*python, "http"], None, None, "echo",
                echo))
    if everything is not None:
        print(_stdio("server-everything (node), stdio", "node", [everything, "stdio"], "echo",
                     echo))
        port = _free_port()
        env = {"PORT": str(port), "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
        print(_http("server-everything (node), streamable HTTP",
                    ["node", everything, "streamableHttp"], env, port, "echo", echo))
    servers = [(python[0], [*python[1:], "stdio"])] * 3
    if everything is not None:
        servers = [*servers[:1], ("node", [everything, "stdio"]), ("node", [everything, "stdio"])]
    parallel, sequential = _startup(servers)
    print(f"\nstart-up of a set of {len(servers)} stdio servers, until every tool list is "
          f"known: {parallel:.2f} s together, {sequential:.2f} s one after another")


if __name__ == "__main__":
    main()

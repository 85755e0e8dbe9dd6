"""MCP costs nothing to those who do not use it: neither the SDK nor the package is imported
by ``import autobyteus_like``, an agent or a team without MCP servers."""

from __future__ import annotations

import subprocess
import sys

SCRIPT = """
import sys
from autobyteus_like import Agent, AgentConfig, AgentTeam, ScriptedLLM, TeamConfig, tool

@tool
def add(a: int, b: int) -> int:
    '''Add.'''
    return a + b

config = AgentConfig(name="a", llm=ScriptedLLM(["done"]), tools=["add", "a*"])
with Agent(config, tools=[add]) as agent:
    assert agent.run("go", timeout=10) == "done"
team = TeamConfig(name="t", coordinator="a", members=[config.model_copy(
    update={"llm": ScriptedLLM(["done"])})])
with AgentTeam(team, tools=[add]) as running:
    assert running.run("go", timeout=10) == "done"
loaded = sorted(name for name in sys.modules
                if name.startswith(("mcp", "jsonschema", "autobyteus_like.mcp")))
print(loaded)
"""


def test_no_mcp_module_is_loaded_without_mcp():
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_the_mcp_package_loads_the_sdk_only_when_a_toolset_starts():
    done = subprocess.run([sys.executable, "-c", (
        "import sys; from autobyteus_like.mcp import MCPToolset; "
        "MCPToolset.stdio('node', name='fs'); print('mcp' in sys.modules)")],
        capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"

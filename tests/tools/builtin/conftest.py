import pytest

from autobyteus_like.tools import SandboxPolicy, ToolContext, builtin_tools


@pytest.fixture
def run(tmp_path):
    """Call a builtin tool by name in a sandbox rooted at tmp_path (limits overridable)."""
    tools = builtin_tools()

    def call(name: str, limits: dict | None = None, **arguments):
        sandbox = SandboxPolicy(roots=[tmp_path], **(limits or {}))
        return tools.get(name).run(arguments, ToolContext(agent="t", sandbox=sandbox))

    return call

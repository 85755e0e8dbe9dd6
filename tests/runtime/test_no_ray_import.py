"""Ray is heavy: importing the package and running a local team never imports it."""

from __future__ import annotations

import subprocess
import sys
import textwrap


def test_a_local_team_and_a_tool_with_resources_run_without_importing_ray():
    script = textwrap.dedent("""
        import sys
        from autobyteus_like import AgentConfig, AgentTeam, ScriptedLLM, TeamConfig
        from autobyteus_like.runtime import LocalRuntime, RayRuntime
        config = TeamConfig.from_data({"name": "t", "coordinator": "a", "members": [
            {"name": "a", "llm": {"provider": "scripted", "responses": ["hi"]},
             "resources": {"num_cpus": 1}}]})
        assert isinstance(config.runtime, LocalRuntime)
        with AgentTeam(config) as team:
            assert team.run("go", timeout=10) == "hi"
        RayRuntime(backend="ray", address="auto")  # describing a Ray runtime is data only
        from autobyteus_like import tool

        @tool(resources={"num_gpus": 1})
        def twice(n: int) -> int:
            \"\"\"Double it.\"\"\"
            return 2 * n

        assert twice.resources == {"num_cpus": 0.0, "num_gpus": 1.0}
        assert twice.run({"n": 21}) == 42  # without Ray running: in this process
        print("ray" in sys.modules, "autobyteus_like.runtime._ray_backend" in sys.modules)
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "False"]

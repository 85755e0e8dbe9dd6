"""Ray is heavy: importing the package and running a local team never imports it."""

from __future__ import annotations

import subprocess
import sys
import textwrap


def test_a_local_team_runs_without_importing_ray():
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
        print("ray" in sys.modules, "autobyteus_like.runtime.ray_backend" in sys.modules)
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "False"]

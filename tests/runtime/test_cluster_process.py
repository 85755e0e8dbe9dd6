"""A Ray cluster started as a separate process (``ray start --head --block``), joined by
address: the CLI runs an example team on it with ``--json``, and a driver killed mid-turn
leaves no actor behind. The cluster is stopped by its own process id."""

from __future__ import annotations

import json
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
EXAMPLES = ROOT / "examples"
BIN = Path(sys.executable).parent


@pytest.fixture(scope="module")
def head_node():
    """A one-node cluster on 127.0.0.1 in a process of its own: (GCS address, state API)."""
    pytest.importorskip("ray", reason="Ray is not installed: pip install 'autobyteus-like[ray]'")
    temp = tempfile.mkdtemp(prefix="rayh")
    env = {**os.environ, "RAY_AUTH_MODE": "disabled", "TMPDIR": temp,  # removed below
           "RAY_GRACEFUL_SHUTDOWN_DRAIN_TIMEOUT_S": "0"}  # nothing to drain on a test node
    head = subprocess.Popen(
        [str(BIN / "ray"), "start", "--head", "--port=0", "--node-ip-address=127.0.0.1",
         "--num-cpus=2", f"--temp-dir={temp}", "--dashboard-host=127.0.0.1",
         "--dashboard-port=0", "--disable-usage-stats", "--block"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    address = api = None
    said: list[str] = []
    try:
        assert head.stdout is not None
        for line in head.stdout:  # ends if the head exits
            said.append(line)
            if found := re.search(r"--address='([^']+)'", line):
                address = found.group(1)
            if found := re.search(r"RAY_API_SERVER_ADDRESS='([^']+)'", line):
                api = found.group(1)
            if "block forever" in line:
                break
        assert address and api, "ray start did not report its addresses:\n" + "".join(said[-40:])
        yield address, api
    finally:
        head.send_signal(signal.SIGTERM)  # it stops every process it started
        try:
            head.wait(timeout=60)
        except subprocess.TimeoutExpired:
            head.kill()
            head.wait()
        if head.stdout is not None:
            head.stdout.close()
        shutil.rmtree(temp, ignore_errors=True)


def actors_of(api: str, namespace: str) -> list:
    from ray.util.state import list_actors

    return [actor for actor in list_actors(address=api, limit=10000, detail=True)
            if actor.ray_namespace == namespace]


def all_dead(api: str, namespace: str, within: float = 120) -> set[str]:
    """The states of the namespace's actors once all are DEAD, or at the deadline. Ray's
    clean-up has no event we can wait on: poll its state. The deadline is generous (a loaded
    machine's Ray notices a lost driver late); an actor left behind stays ALIVE past it."""
    deadline = time.monotonic() + within
    while True:
        states = {actor.state for actor in actors_of(api, namespace)}
        if states == {"DEAD"} or time.monotonic() > deadline:
            return states
        time.sleep(0.2)


def driver_env() -> dict[str, str]:
    return {**os.environ, "RAY_AUTH_MODE": "disabled", "PYTHONPATH": str(ROOT)}


def test_the_cli_runs_an_example_team_on_a_cluster_joined_by_address(head_node, tmp_path):
    address, api = head_node
    team = tmp_path / "team.yaml"
    team.write_text((EXAMPLES / "software_team.yaml").read_text() + textwrap.dedent(f"""
        runtime:
          backend: ray
          address: "{address}"
          namespace: cli-run
        """))
    done = subprocess.run(
        [str(BIN / "autobyteus-like"), "run", str(team), "-m", "Build hello.py", "--json",
         "--yes", "--tools", f"{EXAMPLES / 'example_tools.py'}:make_tools"],
        capture_output=True, text=True, timeout=300, env=driver_env())
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    summary = lines[-1]
    assert summary["answer"].startswith("Done: the coder wrote hello.py")
    assert summary["messages"] == 3 and summary["agents"]["coder"]["tool_calls"] == 3
    results = [e["result"] for e in lines if e["type"] == "ToolResultReceived"]
    written = next(r for r in results if r["tool_name"] == "write_file")
    assert written["content"] == "wrote 21 characters to hello.py"
    assert all_dead(api, "cli-run") == {"DEAD"}


LOST_DRIVER = textwrap.dedent("""
    import sys, time
    from autobyteus_like import AgentTeam, tool
    from autobyteus_like.events import ToolStarted
    from autobyteus_like.runtime import RayRuntime
    from tests.runtime.scripted_teams import call, member, team_config

    @tool
    def block() -> str:
        \"\"\"Work for a long time.\"\"\"
        time.sleep(120)
        return "done"

    worker = member("worker", [call("block"), "done"], tools=["block"])
    runtime = RayRuntime(backend="ray", address=sys.argv[1], namespace="lost-driver")
    team = AgentTeam(team_config(worker), tools=[block], runtime=runtime).start()
    events = team.events()
    team.send("go")
    while not isinstance(events.get(timeout=60), ToolStarted):
        pass
    print("BLOCKED", flush=True)
    time.sleep(120)  # killed by the test long before
""")


def test_a_lost_driver_leaves_no_actor_on_the_cluster(head_node):
    address, api = head_node
    driver = subprocess.Popen([sys.executable, "-c", LOST_DRIVER, address],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env=driver_env())
    try:
        assert driver.stdout is not None
        # a bounded wait: a driver that cannot reach the cluster retries for ever
        ready, _, _ = select.select([driver.stdout], [], [], 240)
        if not ready:
            driver.kill()
        line = driver.stdout.readline() if ready else ""
        assert line.strip() == "BLOCKED", driver.stderr.read()
        assert {actor.state for actor in actors_of(api, "lost-driver")} == {"ALIVE"}
    finally:
        driver.kill()  # the driver is lost mid-turn: no stop, no clean-up of its own
        driver.wait()
        driver.stdout.close()
        driver.stderr.close()
    assert all_dead(api, "lost-driver") == {"DEAD"}

"""A run against the real model (SmolLM2 on llama.cpp's server) exported as a test: the test
passes in a pytest process of its own with no network (its proxies point at a closed port, the
suite's server keeps running); with two of its scripted calls swapped it fails naming them."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from autobyteus_like import AgentConfig, AgentTeam, TeamConfig, tool
from autobyteus_like.errors import AgentTurnError
from autobyteus_like.store import Session
from autobyteus_like.testing import export_session
from tests.llama_server import NATIVE_MODEL

pytestmark = pytest.mark.slow  # a real model on the CPU, and a pytest process of its own

ROOT = Path(__file__).resolve().parents[2]


@tool
def add(a: int, b: int) -> int:
    """Add two whole numbers.

    Args:
        a: The first number.
        b: The second number.
    """
    return a + b


def run_exported(folder: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    closed = "http://127.0.0.1:9"  # nothing listens there
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HTTP_PROXY": closed, "HTTPS_PROXY": closed,
           "NO_PROXY": "", "OPENAI_BASE_URL": closed}
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           str(folder / "test_recorded.py")], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=180)


def test_a_real_model_run_exported_replays_offline(llama_server, tmp_path):
    llm = {"provider": "llamacpp", "model": NATIVE_MODEL, "base_url": llama_server.base_url,
           "temperature": 0, "max_tokens": 48, "timeout_s": 120, "max_retries": 0}
    config = TeamConfig(name="smol_team", coordinator="smol", members=[AgentConfig(
        name="smol", llm=llm, tools=["add"], tool_format="native", tool_choice="required",
        max_iterations=2)])
    session = Session("smol-1", str(tmp_path / "s.db"))
    with AgentTeam(config, tools=[add], session=session) as team:
        for question in ("Call the add tool to add 2 and 3.", "Use add for 40 plus 7."):
            with contextlib.suppress(AgentTurnError):  # max_iterations: still a recording
                team.run(question, timeout=240)
    try:
        responses = session.store.recordings.responses("smol-1", "smol")
        assert responses and all("usage" in response for response in responses)
        folder = tmp_path / "exported"
        export_session(session.store, "smol-1", folder)
    finally:
        session.close()
    passed = run_exported(folder, tmp_path)
    assert passed.returncode == 0, passed.stdout + passed.stderr

    team_data = yaml.safe_load((folder / "team.yaml").read_text())
    replies = team_data["members"][0]["llm"]["responses"]
    with_calls = [i for i, reply in enumerate(replies) if reply.get("tool_calls")]
    pair = next(((i, j) for i in with_calls for j in with_calls if i < j and json.loads(
        replies[i]["tool_calls"][0]["arguments"] or "{}") != json.loads(
        replies[j]["tool_calls"][0]["arguments"] or "{}")), None)
    if pair is None:
        pytest.skip(f"the model wrote no two calls with different arguments: {replies}")
    i, j = pair
    replies[i]["tool_calls"], replies[j]["tool_calls"] = \
        replies[j]["tool_calls"], replies[i]["tool_calls"]
    (folder / "team.yaml").write_text(yaml.safe_dump(team_data, sort_keys=False))
    failed = run_exported(folder, tmp_path)
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "smol: calls reordered: add(" in failed.stdout, failed.stdout

"""A run against the real model (SmolLM2 on llama.cpp's server) exported as a test: the test
passes in a pytest process of its own with no network (its proxies point at a closed port, the
suite's server keeps running); an edited copy, two of its scripted calls swapped, fails naming
them. Kept cheap: two short questions of one request each (max_tokens 32), and one pytest
process for the export and its edited copy, each one's outcome read from ``--junitxml``."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree

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


def run_exported(folders: list[Path], cwd: Path) -> dict[str, str]:
    """Run the exported tests in ``folders`` in one pytest process with no network; each
    test module's outcome (passed/failed) with its failure text, read from ``--junitxml``."""
    closed = "http://127.0.0.1:9"  # nothing listens there
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HTTP_PROXY": closed, "HTTPS_PROXY": closed,
           "NO_PROXY": "", "OPENAI_BASE_URL": closed}
    report = cwd / "report.xml"
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                    "--import-mode=importlib", f"--junitxml={report}",
                    *(str(next(folder.glob("test_*.py"))) for folder in folders)],
                   cwd=cwd, env=env, capture_output=True, text=True, timeout=180)
    outcomes = {}
    for case in ElementTree.parse(report).iter("testcase"):  # named by module: the
        module = (case.get("classname") or "").rpartition(".")[2]  # export's, the edited copy's
        failure = case.find("failure")
        outcomes[module] = "passed" if failure is None else \
            f"failed: {failure.get('message') or ''}\n{failure.text or ''}"
    return outcomes


def test_a_real_model_run_exported_replays_offline(llama_server, tmp_path):
    llm = {"provider": "llamacpp", "model": NATIVE_MODEL, "base_url": llama_server.base_url,
           "temperature": 0, "max_tokens": 32, "timeout_s": 120, "max_retries": 0}
    config = TeamConfig(name="smol_team", coordinator="smol", members=[AgentConfig(
        name="smol", llm=llm, tools=["add"], tool_format="native", tool_choice="required",
        max_iterations=1)])
    session = Session("smol-1", str(tmp_path / "s.db"))
    with AgentTeam(config, tools=[add], session=session) as team:  # a request each
        for question in ("Add 2 and 3.", "Add 40 and 7."):
            with contextlib.suppress(AgentTurnError):  # max_iterations: still a recording
                team.run(question, timeout=240)
    try:
        responses = session.store.recordings.responses("smol-1", "smol")
        assert responses and all("usage" in response for response in responses)
        folder = tmp_path / "exported"
        export_session(session.store, "smol-1", folder)
    finally:
        session.close()

    # an edited copy beside it: two of its scripted calls swapped
    edited = tmp_path / "edited"
    shutil.copytree(folder, edited)
    (edited / "test_recorded.py").rename(edited / "test_edited.py")
    team_data = yaml.safe_load((edited / "team.yaml").read_text())
    replies = team_data["members"][0]["llm"]["responses"]
    calls = [(i, k) for i, reply in enumerate(replies)
             for k in range(len(reply.get("tool_calls") or []))]
    arguments = {(i, k): json.loads(replies[i]["tool_calls"][k]["arguments"] or "{}")
                 for i, k in calls}
    pair = next(((a, b) for a in calls for b in calls
                 if a < b and arguments[a] != arguments[b]), None)
    if pair is None:  # still check the export itself
        outcomes = run_exported([folder], tmp_path)
        assert list(outcomes.values()) == ["passed"], outcomes
        pytest.skip(f"the model wrote no two calls with different arguments: {replies}")
    (i, k), (j, m) = pair
    replies[i]["tool_calls"][k], replies[j]["tool_calls"][m] = \
        replies[j]["tool_calls"][m], replies[i]["tool_calls"][k]
    (edited / "team.yaml").write_text(yaml.safe_dump(team_data, sort_keys=False))
    outcomes = run_exported([folder, edited], tmp_path)  # one pytest process for both
    assert outcomes.get("test_recorded") == "passed", outcomes
    assert "smol: calls reordered: add(" in outcomes.get("test_edited", ""), outcomes

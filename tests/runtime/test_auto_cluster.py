"""``runtime: {backend: ray}`` alone, with no cluster running: ``address: auto`` starts a local
one for the run and says so. (This file sorts first in the package, before the package's own
cluster is started; with a cluster already running on this machine, it skips.)"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import yaml


def _running_cluster() -> bool:
    psutil = pytest.importorskip("psutil")
    return any(process.info["name"] == "gcs_server"
               for process in psutil.process_iter(["name"]))


@pytest.mark.slow  # starts a Ray cluster of its own
def test_address_auto_without_a_cluster_starts_a_local_one_and_says_so(tmp_path):
    pytest.importorskip("ray", reason="Ray is not installed: pip install 'autobyteus-like[ray]'")
    if _running_cluster():
        pytest.skip("a Ray cluster already runs on this machine: address auto would join it")
    path = tmp_path / "team.yaml"
    path.write_text(yaml.safe_dump({"name": "t", "coordinator": "lead",
                                    "runtime": {"backend": "ray"}, "members": [
        {"name": "lead", "llm": {"provider": "scripted", "responses": ["hi"]}}]}))
    temp = tempfile.mkdtemp(prefix="rayl")  # short: Ray's socket paths have a length limit
    env = {key: value for key, value in os.environ.items() if key != "RAY_ADDRESS"}
    env.update(RAY_AUTH_MODE="disabled", TMPDIR=temp)
    try:
        done = subprocess.run([sys.executable, "-m", "autobyteus_like.cli", "run", str(path),
                               "-m", "hello", "--json"], capture_output=True, text=True,
                              env=env, timeout=180, cwd=Path(__file__).parents[2])
    finally:
        shutil.rmtree(temp, ignore_errors=True)
    assert done.returncode == 0, done.stderr
    assert "no running Ray cluster was found (address: auto); started a local one" in done.stderr
    assert '"answer": "hi"' in done.stdout.splitlines()[-1]

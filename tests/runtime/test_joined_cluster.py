"""``address: auto`` with a Ray cluster already running joins it and says so (its address, and
that this run did not start it); a host that then cannot start names the likely cause."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from autobyteus_like.runtime._ray_link import HostLink, joined_cluster_note


@pytest.mark.slow  # joins the suite's Ray cluster from a process of its own
def test_address_auto_says_which_running_cluster_it_joined(ray_cluster, tmp_path):
    address = ray_cluster.get_runtime_context().gcs_address
    path = tmp_path / "team.yaml"
    path.write_text(yaml.safe_dump({"name": "t", "coordinator": "lead",
                                    "runtime": {"backend": "ray", "address": "auto"},
                                    "members": [{"name": "lead", "llm": {
                                        "provider": "scripted", "responses": ["hi"]}}]}))
    env = {**os.environ, "RAY_ADDRESS": address}
    done = subprocess.run([sys.executable, "-m", "autobyteus_like.cli", "run", str(path),
                           "-m", "hello", "--json"], capture_output=True, text=True, env=env,
                          timeout=180, cwd=Path(__file__).parents[2])
    assert done.returncode == 0, done.stderr
    assert (f"joined the running Ray cluster at {address} (address: auto); it was not "
            "started by this run") in done.stderr


def test_a_host_that_cannot_start_there_names_the_likely_cause():
    link = HostLink("t/lead", ("lead",), {}, 1.0)
    link.cluster_note = joined_cluster_note("10.0.0.5:6379")
    cause = link._likely_cause()
    assert cause.startswith("; this run joined a running Ray cluster it did not start (at "
                            "10.0.0.5:6379, by address: auto)")
    assert "address: local" in cause

"""Why a Ray host did not start in time, said as it is: not placed (the cluster lacks what it
asks for, for good or for now), its worker process not up yet, or its members still being
built; and a team whose host never started stops at once."""

from __future__ import annotations

import re
import time

import pytest

from autobyteus_like import AgentTeam, ConfigError, ScriptedLLM
from autobyteus_like.runtime import RayRuntime
from autobyteus_like.runtime._ray_placement import late_start_reason, missing
from tests.runtime.scripted_teams import member, team_config

TOTAL = {"CPU": 2.0, "memory": 8e9, "GPU": 1.0}
GPU = {"num_cpus": 0.0, "num_gpus": 1.0}


def test_what_the_cluster_lacks_for_good_and_for_now():
    assert missing({"num_gpus": 2.0, "resources": {"tpu": 1}}, TOTAL, TOTAL) == (
        {"GPU": 2.0, "tpu": 1.0}, {})
    assert missing(GPU, TOTAL, {"CPU": 2.0}) == ({}, {"GPU": 1.0})
    assert missing({"num_cpus": 0.0}, TOTAL, {}) == ({}, {})  # a packed host asks nothing


def test_each_reason_names_what_happened():
    never = late_start_reason({"num_gpus": 2.0}, 0, TOTAL, TOTAL, 5)
    assert never.startswith("Ray could not place it within 5 s: it needs {'num_gpus': 2.0}, "
                            "and the cluster has no node with {'GPU': 2.0}")
    busy = late_start_reason(GPU, 0, TOTAL, {"CPU": 2.0}, 5)
    assert "the cluster has that, but not free now" in busy
    slow = late_start_reason({"num_cpus": 0.0}, 0, TOTAL, TOTAL, 5)
    assert slow.startswith("its worker process did not start within 5 s, though the cluster "
                           "has what it needs")
    building = late_start_reason(GPU, 4321, TOTAL, {}, 5)
    assert building.startswith("its worker process (pid 4321) runs, but its members were "
                               "still being built after 5 s")


class SlowToBuild(ScriptedLLM):
    """A scripted model that takes ``build_s`` to rebuild in another process (a member whose
    host's process runs but is slow to build its members)."""

    def __init__(self, responses: list[str], build_s: float) -> None:
        super().__init__(responses)
        self.build_s = build_s

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        time.sleep(self.build_s)


def test_a_host_slow_to_build_its_members_is_said_so_and_stops_at_once(ray_cluster):
    slow = member("slow", [])
    slow = slow.model_copy(update={"llm": SlowToBuild(["hi"], build_s=600)})
    # The reason needs the host's worker process up within the timeout: a second on a quiet
    # machine. A try whose timeout was too short for the process to start (it says so, and
    # that reason is checked above) is tried again with twice the time, up to 24 s.
    for timeout_s in (3, 6, 12, 24):
        team = AgentTeam(team_config(slow),
                         runtime=RayRuntime(backend="ray", start_timeout_s=timeout_s))
        began = time.monotonic()
        with pytest.raises(ConfigError) as caught:
            team.start()
        assert time.monotonic() - began < timeout_s + 8  # the stop did not wait 10 s for the host
        assert not team.agents["slow"].running
        if "its worker process did not start within" not in str(caught.value):
            break
    assert re.fullmatch(rf"member 'slow': its worker process \(pid \d+\) runs, but its members "
                        rf"were still being built after {timeout_s} s .*", str(caught.value))

"""``runtime:`` and per-member ``resources:`` in a team's YAML: parsed into data, every
mistake a ConfigError naming the file and the place."""

from __future__ import annotations

import textwrap

import pytest

from autobyteus_like import ConfigError, TeamConfig
from autobyteus_like.runtime import LocalRuntime, MemberResources, RayRuntime

TEAM = """
name: t
coordinator: a
members:
  - name: a
    llm: {provider: scripted, responses: [hi]}
  - name: b
    llm: {provider: scripted, responses: [hi]}
"""


def load(tmp_path, extra: str = "", members: str = TEAM) -> TeamConfig:
    path = tmp_path / "team.yaml"
    path.write_text(members + textwrap.dedent(extra))
    return TeamConfig.from_yaml(path)


def test_the_default_runtime_is_local(tmp_path):
    config = load(tmp_path)
    assert config.runtime == LocalRuntime() and config.member_resources == {}


def test_a_ray_runtime_and_member_resources_from_yaml(tmp_path):
    members = TEAM.replace("  - name: b\n", "  - name: b\n    resources: {num_cpus: 1, num_gpus: "
                                            "0.5, memory: 1000000, custom: {tpu: 2}}\n")
    config = load(tmp_path, """
        runtime: {backend: ray, address: "ray://head:10001", namespace: prod, max_restarts: 3,
                  members_per_worker: 50}
        """, members)
    assert config.runtime == RayRuntime(backend="ray", address="ray://head:10001",
                                        namespace="prod", max_restarts=3,
                                        members_per_worker=50)
    assert config.member_resources == {"b": MemberResources(num_cpus=1, num_gpus=0.5,
                                                            memory=1_000_000,
                                                            custom={"tpu": 2})}
    assert config.member_resources["b"].ray_options() == {
        "num_cpus": 1, "num_gpus": 0.5, "memory": 1_000_000, "resources": {"tpu": 2}}
    assert [m.name for m in config.members] == ["a", "b"]  # members stay plain agents


@pytest.mark.parametrize("extra, members, problem", [
    ("runtime: {backend: slurm}\n", TEAM,
     "runtime: Input tag 'slurm' found using 'backend' does not match any of the expected "
     "tags: 'local', 'ray'"),
    ("runtime: {backend: ray, address: 'http://x'}\n", TEAM,
     "runtime.ray.address: address must be auto, local, ray://HOST:PORT or HOST:PORT, "
     "got 'http://x'"),
    ("runtime: {backend: ray, max_restarts: -5}\n", TEAM,
     "runtime.ray.max_restarts: Input should be greater than or equal to -1"),
    ("runtime: {backend: local, address: auto}\n", TEAM, "runtime.local.address: unknown field"),
    ("runtime: {backend: ray, members_per_worker: 0}\n", TEAM,
     "runtime.ray.members_per_worker: members_per_worker must be a whole number of at least 1 "
     "or 'auto', got 0"),
    ("runtime: {backend: ray, members_per_worker: many}\n", TEAM,
     "runtime.ray.members_per_worker: members_per_worker must be a whole number of at least 1 "
     "or 'auto', got 'many'"),
    ("", TEAM.replace("  - name: b\n", "  - name: b\n    resources: {num_gpu: 1}\n"),
     "members[1].resources.num_gpu: unknown field (use num_cpus, num_gpus, memory or custom)"),
    ("", TEAM.replace("  - name: b\n", "  - name: b\n    resources: {num_cpus: -1}\n"),
     "members[1].resources.num_cpus: Input should be greater than or equal to 0"),
    ("", TEAM.replace("  - name: b\n", "  - name: b\n    resources: [1, 2]\n"),
     "members[1].resources: Input should be a valid dictionary or instance of MemberResources"),
])
def test_mistakes_are_config_errors_naming_the_place(tmp_path, extra, members, problem):
    with pytest.raises(ConfigError) as caught:
        load(tmp_path, extra, members)
    assert caught.value.problems == [problem]
    assert str(caught.value).startswith(str(tmp_path / "team.yaml"))


def test_resources_for_a_member_that_does_not_exist_are_an_error():
    with pytest.raises(ValueError, match="member_resources names no member: ghost"):
        TeamConfig.model_validate({
            "name": "t", "coordinator": "a",
            "members": [{"name": "a", "llm": {"provider": "scripted", "responses": []}}],
            "member_resources": {"ghost": {"num_cpus": 1}}})

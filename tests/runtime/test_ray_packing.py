"""Which members share a host: packed in order, a member with resources of its own alone, and
``auto`` one host per CPU of the cluster."""

from __future__ import annotations

import pytest

from autobyteus_like.runtime import MemberResources, RayRuntime
from autobyteus_like.runtime._ray_packing import pack_members

NAMES = [f"m{i}" for i in range(7)]


def shape(hosts):
    return [list(host.members) for host in hosts]


def test_members_are_packed_in_order_n_to_a_host():
    assert shape(pack_members(NAMES, {}, 3, 64)) == [["m0", "m1", "m2"], ["m3", "m4", "m5"],
                                                     ["m6"]]
    assert shape(pack_members(NAMES, {}, 1, 64)) == [[name] for name in NAMES]


def test_auto_makes_one_host_per_cpu_and_never_more_hosts_than_members():
    assert shape(pack_members(NAMES, {}, "auto", 2)) == [NAMES[:4], NAMES[4:]]
    assert shape(pack_members(NAMES[:3], {}, "auto", 16)) == [["m0"], ["m1"], ["m2"]]
    assert len(pack_members([f"m{i}" for i in range(1000)], {}, "auto", 2)) == 2
    assert shape(pack_members(NAMES[:2], {}, "auto", 0)) == [NAMES[:2]]  # no CPU: one host


@pytest.mark.parametrize("needs", [MemberResources(num_gpus=1), MemberResources(memory=10**9),
                                   MemberResources(custom={"tpu": 1}),
                                   MemberResources(num_cpus=1)])
def test_a_member_with_resources_of_its_own_gets_a_host_of_its_own(needs):
    hosts = pack_members(NAMES, {"m2": needs, "m0": MemberResources()}, 8, 2)
    own = [host for host in hosts if not host.packed]
    assert shape(own) == [["m2"]] and own[0].needs == needs.ray_options()
    packed = [host for host in hosts if host.packed]
    assert shape(packed) == [["m0", "m1", "m3", "m4", "m5", "m6"]]  # asking for nothing: packed
    assert packed[0].needs == {"num_cpus": 0.0, "num_gpus": 0.0}


@pytest.mark.parametrize("value", [0, -2, 1.5, "two", True, None, "AUTO"])
def test_members_per_worker_is_a_count_or_auto_said_plainly(value):
    with pytest.raises(ValueError) as caught:
        RayRuntime(backend="ray", members_per_worker=value)
    assert (f"members_per_worker must be a whole number of at least 1 or 'auto', got {value!r}"
            in str(caught.value))

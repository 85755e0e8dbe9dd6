"""Which members share which Ray host: the packing of a team onto worker processes, as data.

A member that asks for resources of its own (``num_cpus``, ``num_gpus``, ``memory``,
``custom``) gets a host of its own, placed by Ray where those fit; the others are packed,
in the team's order (neighbours in a chain of messages tend to share a process), into hosts
of ``members_per_worker`` members, or with ``auto`` into as many hosts as the cluster has
CPUs: one interpreter (one GIL) per core, since more processes than cores add memory but no
parallelism. Nothing here imports Ray.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from autobyteus_like.tools._resources import MemberResources

__all__ = ["HostPlan", "pack_members"]


@dataclass(frozen=True)
class HostPlan:
    """One host: its members, what it asks of a node (Ray's ``.options()``), and whether it
    is a packed host (spread over the cluster's nodes) or a member's own."""

    members: tuple[str, ...]
    needs: dict[str, Any] = field(default_factory=dict)
    packed: bool = True


def pack_members(names: Sequence[str], resources: dict[str, MemberResources],
                 members_per_worker: int | Literal["auto"], cluster_cpus: float) -> list[HostPlan]:
    """The hosts for members ``names`` (in order), given each member's resources and the
    cluster's CPUs (read only with ``auto``)."""
    plain = MemberResources()
    own = [name for name in names if resources.get(name, plain) != plain]
    packable = [name for name in names if resources.get(name, plain) == plain]
    hosts = [HostPlan((name,), resources[name].ray_options(), packed=False) for name in own]
    if not packable:
        return hosts
    if members_per_worker == "auto":
        count = max(1, min(len(packable), int(cluster_cpus)))
        per_host = math.ceil(len(packable) / count)
    else:
        per_host = members_per_worker
    for start in range(0, len(packable), per_host):
        hosts.append(HostPlan(tuple(packable[start:start + per_host]), plain.ray_options()))
    return hosts

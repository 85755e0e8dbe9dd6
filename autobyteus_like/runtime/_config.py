"""Where a team's members live, as data: ``runtime: {backend: local}`` (the default: pykka
actors in this process) or ``runtime: {backend: ray, address: ..., namespace: ...}``, and what
each member needs of a node (``resources:`` under a member in YAML).

Plain pydantic models: nothing here imports Ray.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from autobyteus_like.tools._resources import MemberResources

__all__ = ["LocalRuntime", "MemberResources", "RayRuntime", "RuntimeConfig",
           "lift_member_resources"]

_ADDRESS = re.compile(r"^(auto|local|ray://[^\s/:]+:\d{1,5}|[^\s/:]+:\d{1,5})$")


class LocalRuntime(BaseModel):
    """Every member on pykka actors in this process (the default and the fast path)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    backend: Literal["local"] = "local"


class RayRuntime(BaseModel):
    """Members inside Ray actors (hosts), placed by Ray on any node.

    ``address``: ``auto`` joins the cluster this machine belongs to, ``local`` starts one in
    this process (or uses the one ``ray.init`` already started), ``ray://host:port`` connects
    through Ray Client, ``host:port`` to a head node's GCS. ``max_restarts``: how often Ray
    restarts a host whose process died, with all its members (without a session the senders
    of the messages they were handling get an error; with one, the members resume them).
    ``members_per_worker``: how many members share one host (one worker process): ``auto``
    packs the members into as many hosts as the cluster has CPUs (one interpreter per core),
    ``1`` gives each member a process of its own; a member that asks for resources of its own
    always gets a host of its own. ``init``: extra
    ``ray.init`` keyword arguments.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    backend: Literal["ray"]
    address: str = "auto"
    namespace: str | None = Field(default=None, min_length=1, max_length=128)
    max_restarts: int = Field(default=1, ge=-1)
    delivery_timeout_s: float = Field(default=30.0, gt=0)
    """How long ``send_message_to`` waits for a teammate's actor to take a message."""
    start_timeout_s: float = Field(default=120.0, gt=0)
    """How long starting waits for Ray to place every member (a member asking for a GPU the
    cluster does not have would otherwise wait forever)."""
    members_per_worker: int | Literal["auto"] = "auto"
    init: dict[str, Any] = Field(default_factory=dict)

    @field_validator("members_per_worker", mode="before")
    @classmethod
    def _a_count_or_auto(cls, value: Any) -> Any:
        """A whole number of at least 1, or ``auto``; anything else said plainly (pydantic
        would list both union branches' complaints)."""
        if value == "auto" or (isinstance(value, int) and not isinstance(value, bool)
                               and value >= 1):
            return value
        raise ValueError(f"members_per_worker must be a whole number of at least 1 or 'auto', "
                         f"got {value!r}")

    @field_validator("address")
    @classmethod
    def _known_address(cls, value: str) -> str:
        if not _ADDRESS.match(value):
            raise ValueError(f"address must be auto, local, ray://HOST:PORT or HOST:PORT, "
                             f"got {value!r}")
        return value


RuntimeConfig = Annotated[LocalRuntime | RayRuntime, Field(discriminator="backend")]


def lift_member_resources(data: Any) -> tuple[Any, list[str]]:
    """Move each member's ``resources:`` (YAML) into the team's ``member_resources`` (member
    name -> ``MemberResources``), so a member stays a plain ``AgentConfig``. Returns the data
    and the problems found, each naming ``members[i].resources``."""
    if not isinstance(data, dict) or not isinstance(data.get("members"), list):
        return data, []
    if not any(isinstance(m, dict) and "resources" in m for m in data["members"]):
        return data, []
    lifted: dict[str, Any] = dict(data.get("member_resources") or {})
    members: list[Any] = []
    problems: list[str] = []
    for i, member in enumerate(data["members"]):
        if not isinstance(member, dict) or "resources" not in member:
            members.append(member)
            continue
        member = dict(member)
        raw = member.pop("resources")
        members.append(member)
        try:
            resources = MemberResources.model_validate(raw or {})
        except ValidationError as exc:
            for error in exc.errors():
                where = ".".join(str(part) for part in error["loc"])
                message = error["msg"].removeprefix("Value error, ")
                if error["type"] == "extra_forbidden":
                    message = "unknown field (use num_cpus, num_gpus, memory or custom)"
                problems.append(f"members[{i}].resources{'.' + where if where else ''}: "
                                f"{message}")
            continue
        lifted[str(member.get("name", i))] = resources
    return {**data, "members": members, "member_resources": lifted}, problems

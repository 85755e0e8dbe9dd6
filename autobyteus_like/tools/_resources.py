"""What a member or a tool's body needs of a Ray node (``resources:`` under a member in YAML,
``@tool(resources=...)``), as data: a plain pydantic model, nothing here imports Ray. The Ray
backend reads it; a local team ignores it."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["MemberResources"]


class MemberResources(BaseModel):
    """What one member (or one tool's task) needs of a Ray node. ``memory`` is in bytes;
    ``custom`` names resources the cluster's nodes declare (``{"tpu": 1}``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    num_cpus: float = Field(default=0.0, ge=0)
    """CPUs reserved for the member's actor (0: an agent mostly waits on its LLM)."""
    num_gpus: float = Field(default=0.0, ge=0)
    memory: int | None = Field(default=None, ge=0)
    custom: dict[str, Annotated[float, Field(ge=0)]] = Field(default_factory=dict)

    def ray_options(self) -> dict[str, Any]:
        """The keyword arguments Ray's ``.options()`` takes for these resources."""
        options: dict[str, Any] = {"num_cpus": self.num_cpus, "num_gpus": self.num_gpus}
        if self.memory is not None:
            options["memory"] = self.memory
        if self.custom:
            options["resources"] = dict(self.custom)
        return options

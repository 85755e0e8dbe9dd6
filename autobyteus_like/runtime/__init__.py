"""Where a team's members live: ``local`` (pykka actors in this process, the default) or
``ray`` (Ray actors on any node of a cluster, each a ``MemberHost`` of one member or several:
``members_per_worker``, ``ray_packing``). Both deliver mail through the team's ``MailRoom``
(``autobyteus_like.mail``, below) and give the team one member surface (``backend.Member``:
the Ray member keeps its owed replies with the local agent's helper, ``agent.member_replies``).
Ray is imported only by a team whose runtime is ``ray``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from autobyteus_like.runtime._config import (
    LocalRuntime,
    MemberResources,
    RayRuntime,
    RuntimeConfig,
)

if TYPE_CHECKING:
    from autobyteus_like.mail._room import MailRoom
    from autobyteus_like.runtime._backend import Backend

__all__ = ["LocalRuntime", "MemberResources", "RayRuntime", "RuntimeConfig", "open_backend"]


def open_backend(runtime: LocalRuntime | RayRuntime, mail: MailRoom,
                 member_resources: dict[str, MemberResources] | None = None) -> Backend:
    """The backend for ``runtime``, delivering through ``mail`` (the team's mail room)."""
    if isinstance(runtime, RayRuntime):
        from autobyteus_like._extras import require_extra

        require_extra("ray", "runtime: {backend: ray}")
        from autobyteus_like.runtime._ray_backend import RayBackend

        return RayBackend(runtime, mail, member_resources or {})
    from autobyteus_like.runtime._local import LocalBackend

    return LocalBackend(mail)

"""Why a Ray host did not start in time, said as it is: Ray could not place it (the cluster
lacks what it asks for), its worker process did not come up (a busy node starts worker
processes a few at a time), or its process runs but its members were still being built.

``missing`` compares what a host asks for with what the cluster has (pure); ``host_pid`` asks
Ray's control store (GCS) for the host's process, 0 while it has none.
"""

from __future__ import annotations

from typing import Any

__all__ = ["host_pid", "late_start_reason", "missing"]

_RAY_NAMES = {"num_cpus": "CPU", "num_gpus": "GPU", "memory": "memory"}


def _asks(needs: dict[str, Any]) -> dict[str, float]:
    """What ``needs`` (a host's Ray options) asks of a node, by Ray's resource names."""
    asked = {_RAY_NAMES[key]: float(value) for key, value in needs.items()
             if key in _RAY_NAMES and value}
    asked.update({name: float(amount) for name, amount in needs.get("resources", {}).items()
                  if amount})
    return asked


def missing(needs: dict[str, Any], total: dict[str, float], free: dict[str, float]
            ) -> tuple[dict[str, float], dict[str, float]]:
    """What the cluster lacks for ``needs``: (beyond all it has, beyond what is free now)."""
    asked = _asks(needs)
    never = {name: amount for name, amount in asked.items() if total.get(name, 0.0) < amount}
    busy = {name: amount for name, amount in asked.items()
            if name not in never and free.get(name, 0.0) < amount}
    return never, busy


def late_start_reason(needs: dict[str, Any], pid: int, total: dict[str, float],
                      free: dict[str, float], timeout_s: float) -> str:
    """One sentence: what kept a host from starting within ``timeout_s``."""
    if pid:
        return (f"its worker process (pid {pid}) runs, but its members were still being built "
                f"after {timeout_s:g} s (their tools, MCP servers, sessions); raise "
                "runtime.start_timeout_s if that is expected")
    never, busy = missing(needs, total, free)
    if never:
        return (f"Ray could not place it within {timeout_s:g} s: it needs {needs}, and the "
                f"cluster has no node with {never} (it has {_sorted(total)} in all)")
    if busy:
        return (f"Ray could not place it within {timeout_s:g} s: it needs {needs}; the cluster "
                f"has that, but not free now ({_sorted(free)} free): other work holds it")
    return (f"its worker process did not start within {timeout_s:g} s, though the cluster has "
            f"what it needs ({needs or 'nothing'}): a busy node starts worker processes a few "
            "at a time; raise runtime.start_timeout_s or give the node fewer processes")


def _sorted(figures: dict[str, float]) -> dict[str, float]:
    """Ray's resource figures in a stable order (Ray's own varies from call to call)."""
    return dict(sorted(figures.items()))


def host_pid(handle: Any) -> int:
    """The pid of the host's process as Ray's control store has it (0: none yet, or not
    known: the store's table is Ray's own, read without the dashboard)."""
    try:
        from ray._private import state

        info = state.actors(handle._actor_id.hex())
        return int(info.get("Pid") or 0)
    except Exception:  # another Ray version's layout: the reason then leaves the pid out
        return 0

"""The runtime package's real local Ray cluster, for the served Ray team's tests (and its
thread check, which allows the threads Ray's driver keeps while connected)."""

from tests.runtime.conftest import no_thread_left_behind, ray_cluster

__all__ = ["no_thread_left_behind", "ray_cluster"]

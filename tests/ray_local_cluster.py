"""A real local Ray cluster for the tests (``ray.init(num_cpus=2)`` with the dashboard, which
the state API needs), in a temporary directory removed afterwards. Its start costs seconds
and its idle processes keep costing CPU, so the suite starts it once, when the first test
that needs it starts, and stops it right after the last such test (tests/conftest.py), not
at the end of the run. Skips, saying why, where Ray is not installed."""

from __future__ import annotations

import os
import shutil
import tempfile
from types import ModuleType

import pytest

__all__ = ["LocalRayCluster"]


class LocalRayCluster:
    """``start()`` joins this process to a new local cluster and returns the ``ray`` module;
    ``stop()`` disconnects, ends the cluster and removes its folder (again: nothing)."""

    def __init__(self) -> None:
        self._temp: str | None = None
        self._saved_address: str | None = None

    def start(self) -> ModuleType:
        ray = pytest.importorskip("ray", reason="Ray is not installed: pip install "
                                                "'autobyteus-like[ray]'")
        os.environ.setdefault("RAY_AUTH_MODE", "disabled")  # no token file in the home folder
        self._temp = temp = tempfile.mkdtemp(prefix="ray")  # short: socket paths have a limit
        # Ray's processes (the dashboard's) leave multiprocessing directories in TMPDIR when
        # they are ended: theirs is this directory, removed by stop().
        saved = os.environ.get("TMPDIR")
        os.environ["TMPDIR"] = temp
        try:
            ray.init(num_cpus=2, include_dashboard=True, _temp_dir=temp, log_to_driver=False,
                     namespace="autobyteus-tests")
        finally:
            if saved is None:
                os.environ.pop("TMPDIR")
            else:
                os.environ["TMPDIR"] = saved
        # the state API (list_actors, list_tasks) asks this cluster, not whichever other Ray
        # instance runs on the machine (with two, it refuses to guess)
        self._saved_address = os.environ.get("RAY_ADDRESS")
        os.environ["RAY_ADDRESS"] = ray.get_runtime_context().gcs_address
        return ray

    @property
    def running(self) -> bool:
        return self._temp is not None

    def stop(self) -> None:
        if self._temp is None:
            return
        import ray

        if self._saved_address is None:
            os.environ.pop("RAY_ADDRESS", None)
        else:
            os.environ["RAY_ADDRESS"] = self._saved_address
        ray.shutdown()
        shutil.rmtree(self._temp, ignore_errors=True)
        self._temp = None

"""A Ray team served by ``TeamHost``: the time of one ask when each ask is a new run in place
(now) against rebuilding the team for every ask (as before: stop it, build it, start it,
placing its hosts again), measured in the same run on a local Ray cluster, by turns.

    python benchmarks/serve_ray_benchmark.py [ASKS]
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from autobyteus_like import AgentTeam
from autobyteus_like.events import AgentEvent
from autobyteus_like.runtime import RayRuntime
from autobyteus_like.serving._team_host import TeamHost
from tests.runtime.scripted_teams import member, team_config


async def _ignore(event: AgentEvent) -> None:
    return None


def _host(asks: int) -> TeamHost:
    answers = [f"answer {n}" for n in range(asks)]
    config = team_config(member("lead", answers, tools=[]), member("helper", ["hi"], tools=[]),
                         runtime=RayRuntime(backend="ray", members_per_worker=1))
    return TeamHost(config)


def _per_ask(host: TeamHost, asks: int) -> float:
    """Seconds per ask after one untimed warm-up ask, the host started here and stopped."""
    host.start()
    try:
        anyio.run(host.ask, "warm up", None, _ignore)
        started = time.perf_counter()
        for n in range(asks - 1):
            anyio.run(host.ask, f"question {n}", None, _ignore)
        return (time.perf_counter() - started) / (asks - 1)
    finally:
        host.stop()


def in_place(asks: int) -> float:
    """Seconds per ask, each a new run of the same started team."""
    return _per_ask(_host(asks), asks)


def rebuilt(asks: int) -> float:
    """Seconds per ask, the team stopped and started again before each (the old way)."""
    host = _host(asks)

    def rebuild(rewind: bool = False, abandon: str = "", conversation: str | None = None
                ) -> None:
        host.team.stop()
        host._team = AgentTeam(host.config, tools=host._tools).start()

    host._new_run = rebuild  # type: ignore[method-assign]
    return _per_ask(host, asks)


def main() -> None:
    import ray

    asks = int(sys.argv[1]) if len(sys.argv) > 1 else 6
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    temp = tempfile.mkdtemp(prefix="ray")
    ray.init(num_cpus=2, include_dashboard=False, _temp_dir=temp, log_to_driver=False)
    try:
        rounds = [(in_place(asks), rebuilt(asks)) for _ in range(2)]
    finally:
        ray.shutdown()
    now, before = min(r[0] for r in rounds), min(r[1] for r in rounds)
    print(f"| ask of a served 2-member Ray team | in place (now) | rebuilt per ask (before) "
          f"| before / now |\n| --- | --- | --- | --- |\n"
          f"| seconds per ask, best of 2 rounds of {asks - 1} | {now:.3f} | {before:.3f} "
          f"| {before / now:.1f}x |")


if __name__ == "__main__":
    main()

"""A team's limits on Ray: what keeping the team's ``limits:`` costs per hop, in the same run.

    pip install 'autobyteus-like[ray]'
    python -m benchmarks.ray_limits_benchmark                 # 50 members, packed, 3 rounds
    python -m benchmarks.ray_limits_benchmark --members 50 --per-worker 1 --rounds 5

The ring of ``ray_scale_benchmark.py`` (each hop a whole member turn on a scripted LLM: two
LLM requests and one ``send_message_to`` call), once without limits and once with the team's
``max_llm_calls`` and ``max_tool_calls`` set high enough never to be reached, so every call is
claimed from the team's budget (runtime/_ray_team_budget.py) and nothing else differs. Rounds
alternate (without, with, without, ...) so the machine's load falls on both alike; the figure
is the median ms per hop of each, and their ratio.
"""

from __future__ import annotations

import argparse
import os
import statistics

import ray

from autobyteus_like import UsageLimits
from benchmarks.ray_scale_benchmark import hop_ms

HIGH = UsageLimits(max_llm_calls=10**9, max_tool_calls=10**9)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--members", type=int, default=50)
    parser.add_argument("--laps", type=int, default=4)
    parser.add_argument("--per-worker", default="auto")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    per_worker: int | str = args.per_worker if args.per_worker == "auto" else int(
        args.per_worker)
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    ray.init(num_cpus=os.cpu_count() or 2, include_dashboard=False, log_to_driver=False)
    load = os.getloadavg()[0]
    hop_ms(args.members, 1, per_worker, None)  # warm: the workers' first imports
    without: list[float] = []
    with_limits: list[float] = []
    for _ in range(args.rounds):
        without.append(hop_ms(args.members, args.laps, per_worker, None))
        with_limits.append(hop_ms(args.members, args.laps, per_worker, HIGH))
    ray.shutdown()
    plain, limited = statistics.median(without), statistics.median(with_limits)
    print(f"{os.cpu_count()} cores; Ray {ray.__version__}; load average {load:.1f} at the "
          f"start, {os.getloadavg()[0]:.1f} at the end")
    print(f"{args.members}-member ring, {args.laps} laps, members_per_worker: {per_worker}; "
          f"{args.rounds} rounds each (ms a hop, median):")
    print(f"  without limits  {plain:7.2f}   ({', '.join(f'{m:.2f}' for m in without)})")
    print(f"  with limits     {limited:7.2f}   ({', '.join(f'{m:.2f}' for m in with_limits)})")
    print(f"  with / without  {limited / plain:7.2f}x")


if __name__ == "__main__":
    main()

"""One tool round trip against the bare pykka pipeline, per-turn medians, in one run.

    taskset -c 0 python benchmarks/round_trip_benchmark.py   # one core: the figure to claim
    python benchmarks/round_trip_benchmark.py                # two cores: the scheduler decides

A round trip is one user turn of ``runtime_benchmark.round_trips`` (ScriptedLLM -> one no-op
tool call -> its result -> the final answer); the floor is ``floor_round_trips`` (three bare
pykka actors doing the 4 asks such a turn needs). The floor is measured a second time with its
threads on the policy an agent's threads run (``SCHED_BATCH``, agent/_quiet_wakeup.py), so the
part of the ratio that policy alone buys shows. Floor and agent alternate in rounds so that a
change in the machine's load falls on both; each side's figure is the median over every turn of
every round, and the ratio is taken of those medians.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script from anywhere

from benchmarks.runtime_benchmark import floor_round_trips, round_trips


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    rounds = parser.parse_args().rounds
    floors: list[float] = []
    quiet_floors: list[float] = []
    turns: list[float] = []
    ratios: list[float] = []
    for _ in range(rounds):
        floor = floor_round_trips()
        quiet_floors += floor_round_trips(quiet=True)
        turn = round_trips(grow=False)
        floors += floor
        turns += turn
        ratios.append(statistics.median(turn) / statistics.median(floor))
    floor_us = statistics.median(floors) * 1e6
    quiet_us = statistics.median(quiet_floors) * 1e6
    turn_us = statistics.median(turns) * 1e6
    print(f"bare pykka pipeline (3 actors, 4 asks): {floor_us:6.1f} us per turn (median)")
    print(f"agent tool round trip:                  {turn_us:6.1f} us per turn (median)")
    print(f"ratio of the medians:                   {turn_us / floor_us:.2f}x "
          f"(per round: {', '.join(f'{r:.2f}' for r in ratios)})")
    print(f"the same pipeline on SCHED_BATCH threads (the agent's thread policy): "
          f"{quiet_us:6.1f} us per turn; the agent against it: {turn_us / quiet_us:.2f}x")


if __name__ == "__main__":
    main()

"""The hot path in one run: every figure of issue 16's table next to its floor.

    python benchmarks/hot_path_benchmark.py            # about three minutes
    python benchmarks/hot_path_benchmark.py --quick    # smaller inputs, fewer rounds

1. A tool round trip (ScriptedLLM -> one tool call -> result -> final answer) against a bare
   pykka 3-actor pipeline doing the 4 asks such a turn needs, in alternating rounds.
2. The XML parser where the input is structure, against lxml on the same bytes (and autobyteus
   1.4.4's parser when it is installed: ``pip install 'autobyteus-like[bench]'``).
3. Every format streamed in 16-character chunks against its own batch parse.
4. Import to a started agent against the dependencies' own import (fresh interpreters).
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script from anywhere

from benchmarks import parser_benchmark, runtime_benchmark


def round_trip(rounds: int) -> None:
    print("## Tool round trip against a bare pykka 3-actor pipeline\n")
    ratios, floors, ours = [], [], []
    for _ in range(rounds):
        floor = statistics.mean(runtime_benchmark.floor_round_trips())
        turn = statistics.mean(runtime_benchmark.round_trips(grow=False))
        floors.append(floor)
        ours.append(turn)
        ratios.append(turn / floor)
    print("| figure | value |\n| --- | --- |")
    print(f"| bare pykka pipeline (3 actors, 4 asks) | {statistics.median(floors) * 1e6:.0f} us |")
    print(f"| agent tool round trip | {statistics.median(ours) * 1e6:.0f} us |")
    print(f"| round trip / floor (median of {rounds} rounds) | "
          f"{statistics.median(ratios):.2f}x (goal <= 1.5x) |\n")


def import_time(runs: int) -> None:
    print("## Import to a started agent against the dependencies' own import\n")
    pairs = [(float(runtime_benchmark.child(runtime_benchmark.CHILD_DEPS)),
              float(runtime_benchmark.child(runtime_benchmark.CHILD_IMPORT)))
             for _ in range(runs)]
    deps = statistics.median(d for d, _ in pairs) * 1e3
    ready = statistics.median(r for _, r in pairs) * 1e3
    ratio = statistics.median(r / d for d, r in pairs)
    print("| figure | value |\n| --- | --- |")
    print(f"| pykka + pydantic + loguru + lxml | {deps:.0f} ms |")
    print(f"| `import autobyteus_like` to a started agent | {ready:.0f} ms |")
    print(f"| ratio (median of {runs} pairs) | {ratio:.2f}x (goal <= 1.3x) |\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller inputs, fewer rounds")
    quick = parser.parse_args().quick
    round_trip(3 if quick else 5)
    parser_benchmark.xml_rows(quick, 3 if quick else 7)
    parser_benchmark.mixed_rows(quick, 3 if quick else 7)
    import_time(5 if quick else 9)


if __name__ == "__main__":
    main()

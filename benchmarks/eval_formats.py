"""The full eval-formats table for SmolLM2-135M on llama.cpp's server: the built-in suite (20
tasks), every format, made by hand (the CI runs a 2 x 2 slice: tests/evals/).

Native runs on the server's ``chatml-function-calling`` model alias (its native tool calling),
the six text formats on plain ``chatml`` (that alias HTML-escapes every message: see
tests/llama_server.py). Temperature 0, 96 reply tokens at most.

Run: ``python -m benchmarks.eval_formats [--repeat N] [--tasks ID,ID] [--json FILE]
[--plot FILE.png] [--manifest full|compact] [--max-iterations N]``
(needs the llama.cpp virtualenv that ``.ci/run`` sets up).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from rich.console import Console

from autobyteus_like.evals import ALL_FORMATS, EvalTask, FormatEval, load_suite
from autobyteus_like.evals._show import plot, table
from autobyteus_like.llm._base import LLM
from autobyteus_like.llm._openai import OpenAILLM


def main() -> None:
    import pytest

    from tests.llama_server import NATIVE_MODEL, TEXT_MODEL, LlamaServer

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--tasks", default="")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--plot", type=Path)
    parser.add_argument("--manifest", choices=("full", "compact"), default="full")
    parser.add_argument("--max-iterations", type=int, default=6)
    args = parser.parse_args()
    suite = load_suite()
    if args.tasks:
        suite = suite.only(args.tasks.split(","))
    try:
        server = LlamaServer().start()
    except pytest.skip.Exception as skipped:
        raise SystemExit(f"no llama.cpp server: {skipped}") from None
    try:
        def make(tool_format: str, task: EvalTask) -> LLM:
            model = NATIVE_MODEL if tool_format == "native" else TEXT_MODEL
            return OpenAILLM(model, provider="llamacpp", base_url=server.base_url,
                             temperature=0, max_tokens=96, timeout_s=300, max_retries=0)

        print(f"load before: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} "
              f"{os.getloadavg()[2]:.2f} (1, 5, 15 min)")
        started = time.perf_counter()
        report = FormatEval(make, suite, model="llamacpp SmolLM2-135M-Instruct (Q8)",
                            formats=ALL_FORMATS, repeat=args.repeat, timeout_s=600,
                            manifest=args.manifest, max_iterations=args.max_iterations).run()
        print(f"took {time.perf_counter() - started:.0f} s; load after: "
              f"{os.getloadavg()[0]:.2f}")
    finally:
        server.stop()
    Console(width=140).print(table(report))
    best = report.verdict()
    print(f"verdict: {best.format if best else 'none'}")
    if args.json is not None:
        args.json.write_text(json.dumps(report.as_json(), indent=2, ensure_ascii=False))
    if args.plot is not None:
        plot(report, args.plot)


if __name__ == "__main__":
    main()

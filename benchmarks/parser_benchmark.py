"""Parser throughput and linearity, next to json.loads and lxml measured in the same run.

    python benchmarks/parser_benchmark.py            # full run (about a minute)
    python benchmarks/parser_benchmark.py --quick    # smaller inputs, fewer repeats

For each format: a realistic ~1 MB response parsed whole, streamed in 16-character chunks and in
1-character chunks; then the per-byte cost on a 10 KB response against the 1 MB one (linearity).
Both are made of the same ~10 KB unit (prose, code full of ``<`` and braces, and one call whose
argument is ~4 KB of HTML and code), so they differ only in size.
References: ``json.loads`` on a 1 MB JSON document of the same calls, ``lxml.etree.fromstring`` on
a 1 MB XML document of the same calls.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from functools import partial
from typing import Any

from lxml import etree

from autobyteus_like import ToolCallFormat
from autobyteus_like.formatters import formatter_for
from autobyteus_like.parsers import StreamingToolCallParser, parse_tool_calls

PROSE = (
    "Let me look at the renderer first. The loop in `draw()` compares i < n and j > 0, "
    "uses a map {key: value} and indexes [0], which is why the template <T> matters here. "
    "I will change the file and then run the tests again to be sure nothing else broke.\n\n"
)
CODE = (
    "```cpp\ntemplate <typename T>\nstd::vector<T> take(const std::vector<T>& xs, int n) {\n"
    "    if (n < 0 || xs.size() < n) { return {}; }\n    std::vector<T> out{xs.begin(), "
    "xs.begin() + n};\n    for (auto& x : out) { x = x * 2; } // a<b && c>d\n    return out;\n"
    "}\n```\n\n"
)
ARGUMENT = (
    "<html><body class=\"x\">if (a < b && c > d) { render(\"<div>\"); } [1, 2] &amp;</body>"
    "</html>\n" * 40
)


def response(fmt: str, size: int) -> str:
    """Whole units of prose, code and one call, about ``size`` characters in all."""
    call = formatter_for(fmt).format_call("write_file", {"path": "src/a.html", "content": ARGUMENT})
    unit = (PROSE + CODE) * 9 + call + "\n"
    return unit * max(1, round(size / len(unit)))


def best_of(repeats: int, work: Callable[[], object]) -> float:
    """The fastest of ``repeats`` runs, in seconds (least disturbed by the machine)."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - start)
    return best


def streamed(text: str, fmt: str, chunk: int) -> int:
    """Parse ``text`` fed in ``chunk``-sized pieces; return the number of events."""
    parser = StreamingToolCallParser(fmt)
    count = 0
    for start in range(0, len(text), chunk):
        count += len(parser.feed(text[start : start + chunk]))
    return count + len(parser.finish())


def mb_per_s(size: int, seconds: float) -> float:
    """Throughput in MB/s (10^6 characters per second)."""
    return size / seconds / 1e6


def main() -> None:
    """Run the measurements and print a Markdown table."""
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("--quick", action="store_true", help="smaller inputs, fewer repeats")
    quick = args.parse_args().quick
    big, small, repeats = (200_000, 10_000, 3) if quick else (1_000_000, 10_000, 5)

    arguments: dict[str, Any] = {"path": "a", "content": ARGUMENT}
    count = big // len(ARGUMENT)
    json_doc = json.dumps([{"name": "write_file", "arguments": arguments}] * count)
    xml_call = formatter_for("xml").format_call("write_file", arguments)
    xml_doc = "<calls>" + xml_call * count + "</calls>"
    json_ref = mb_per_s(len(json_doc), best_of(repeats, lambda: json.loads(json_doc)))
    xml_bytes = xml_doc.encode()
    lxml_ref = mb_per_s(len(xml_doc), best_of(repeats, lambda: etree.fromstring(xml_bytes)))
    print(f"reference: json.loads {json_ref:.0f} MB/s, lxml.etree.fromstring {lxml_ref:.0f} MB/s "
          f"({len(json_doc) / 1e6:.2f} MB documents)\n")
    print("| format | size | calls | batch MB/s | 16-char MB/s | stream/batch per byte "
          "| 1-char MB/s | per-byte cost 1 MB / 10 KB |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for fmt in ToolCallFormat:
        text, tiny = response(fmt.value, big), response(fmt.value, small)
        found = len(parse_tool_calls(text, fmt).invocations)
        batch = best_of(repeats, partial(parse_tool_calls, text, fmt))
        sixteen = best_of(repeats, partial(streamed, text, fmt.value, 16))
        one = best_of(1, partial(streamed, text, fmt.value, 1))
        tiny_batch = best_of(repeats * 20, partial(parse_tool_calls, tiny, fmt))
        linearity = (batch / len(text)) / (tiny_batch / len(tiny))
        print(f"| {fmt.value} | {len(text) / 1e6:.2f} MB | {found} "
              f"| {mb_per_s(len(text), batch):.0f} | {mb_per_s(len(text), sixteen):.1f} "
              f"| {sixteen / batch:.1f}x | {mb_per_s(len(text), one):.2f} | {linearity:.2f}x |")


if __name__ == "__main__":
    main()

"""Parser throughput and linearity, next to the C parsers' floor measured in the same run.

    python benchmarks/parser_benchmark.py            # full run (a minute or two)
    python benchmarks/parser_benchmark.py --quick    # smaller inputs, fewer repeats

Part 1, the XML parser where the input is structure: a call with 20,000 ``<item>``s, 2,000 small
calls parsed with their tools given, and a 10 KB response dense with tags. Each input is itself a
well-formed XML document (the calls, wrapped in one root element where there are several), so
``lxml.etree.fromstring`` reads the same bytes: its speed is the floor. autobyteus 1.4.4's XML
parser (its ``ParsingStreamingResponseHandler``, which streams the ``<tool>`` blocks and reads
their arguments with ElementTree) runs on the same inputs when the package is installed
(``pip install autobyteus==1.4.4``); the script says so when it is not.

Part 2, every format on a ~1 MB mixed response (prose and code dense with ``<``, ``{`` and ``[``
around calls whose argument is ~4 KB of HTML and code): batch, 16-character and 1-character
chunks, and the per-byte cost at 1 MB against 10 KB (linearity). References: ``json.loads`` and
``lxml.etree.fromstring`` on ~1 MB documents of the same calls.

Part 3 (``--small-calls`` runs it alone), the goal "streaming at the speed of batch": 2,000 small
calls as each text format's formatter writes them, parsed whole and in 16-character chunks, and
for XML lxml on the same calls. ``--wrappers`` splits the stream's cost: the same chunks read by
the format's parser alone and inside the two wrappers every text format sits in
(``EntityRepair``, ``OpenModelShapes``), in microseconds a call.

Times are the measuring thread's CPU time (``time.thread_time``), so the time it waits for a
core on a shared machine is not counted. Streams are cut into chunks before the clock starts (an
LLM client hands them over ready), and each stream is read by one ``StreamingToolCallParser``
from the first chunk to ``finish``. Timings are the best of several runs; what a ratio compares
runs by turns, so a change in the machine's load falls on both sides alike. The ``native``
format passes text through: its cost per chunk is the floor of the streaming API itself.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from lxml import etree

from autobyteus_like import ToolCallFormat, ToolRegistry, tool
from autobyteus_like.formats import formatter_for, parse_tool_calls, streaming_parser
from autobyteus_like.parsers import StreamingToolCallParser
from autobyteus_like.parsers._base import ParserFactory

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
STREAM_CHUNK = 16
CLOCK = time.thread_time
"""The measuring thread's CPU time: on a shared machine the time it waits for a core is not
counted (the parsing is single-threaded, so this is its whole cost)."""


@tool
def write_file(path: str, content: str) -> str:
    """Write text to a file.

    Args:
        path: Where to write.
        content: The full text of the file.
    """
    return path


@tool
def plan_layout(name: str, boxes: list[dict[str, int]], grid: list[list[int]],
                style: dict[str, str]) -> str:
    """Lay boxes out on a grid.

    Args:
        name: The layout's name.
        boxes: Each box's x, y, w and h.
        grid: Rows of cell widths.
        style: CSS properties by name.
    """
    return name


TOOLS = ToolRegistry.of([write_file, plan_layout])


# -- inputs ----------------------------------------------------------------------------------

def response(fmt: str, size: int) -> str:
    """Whole units of prose, code and one call, about ``size`` characters in all."""
    call = formatter_for(fmt).format_call("write_file", {"path": "src/a.html", "content": ARGUMENT})
    unit = (PROSE + CODE) * 9 + call + "\n"
    return unit * max(1, round(size / len(unit)))


def argument_dense(items: int) -> str:
    """One call whose one argument is a list of ``items`` short values (a well-formed document)."""
    values = "".join(f"<item>v{n}</item>" for n in range(items))
    return f'<tool name="tag"><arguments><arg name="values">{values}</arg></arguments></tool>'


def small_calls(count: int) -> str:
    """``count`` small calls one after another, written compactly as models often do (~105
    characters each: per byte, the hardest case for per-call work)."""
    return "\n".join(
        f'<tool name="write_file"><arguments><arg name="path">src/m{n}.py</arg>'
        f'<arg name="content">pass</arg></arguments></tool>' for n in range(count)
    )


TAG_DENSE_PROSE = (
    "<p>I will lay out the <b>dashboard</b> first, then write its <code>index.html</code>.</p>\n"
)
TAG_DENSE_HTML = (
    '<div class="row"><span class="cell">a</span><span class="cell">b</span></div>\n' * 4
)


def tag_dense(size: int) -> str:
    """A response made of markup: prose in tags, a call with nested objects and lists, and a
    call whose content argument is HTML written raw; about ``size`` characters."""
    xml = formatter_for("xml")
    layout = xml.format_call("plan_layout", {
        "name": "dashboard",
        "boxes": [{"x": n, "y": n * 2, "w": 10, "h": 4} for n in range(6)],
        "grid": [[1, 2, 3], [4, 5, 6], [7, 8, 9]],
        "style": {"color": "red", "margin": "0 auto", "font": "12px serif"},
    })
    page = ('<tool name="write_file">\n  <arguments>\n    <arg name="path">index.html</arg>\n'
            f'    <arg name="content">{TAG_DENSE_HTML}</arg>\n  </arguments>\n</tool>\n')
    unit = TAG_DENSE_PROSE + layout + "\n" + TAG_DENSE_PROSE + page
    return unit * max(1, round(size / len(unit)))


# -- measuring -------------------------------------------------------------------------------

def best_of(repeats: int, work: Callable[[], object]) -> float:
    """The fastest of ``repeats`` runs, in seconds (least disturbed by the machine)."""
    return best_of_each(repeats, work)[0]


def best_of_each(repeats: int, *works: Callable[[], object]) -> list[float]:
    """The fastest of ``repeats`` runs of each work, in seconds, the works taking turns so that
    a change in the machine's load falls on all of them alike (their ratio is the figure)."""
    best = [float("inf")] * len(works)
    for _ in range(repeats):
        for index, work in enumerate(works):
            start = CLOCK()
            work()
            best[index] = min(best[index], CLOCK() - start)
    return best


def chunks_of(text: str, size: int) -> list[str]:
    return [text[start : start + size] for start in range(0, len(text), size)]


def streamed(chunks: list[str], fmt: str, tools: ToolRegistry | None = None) -> int:
    """Parse pre-cut chunks with one streaming parser; return the number of events."""
    parser = streaming_parser(fmt, tools)
    feed = parser.feed
    count = 0
    for chunk in chunks:
        count += len(feed(chunk))
    return count + len(parser.finish())


def streamed_alone(chunks: list[str], fmt: str, factory: ParserFactory) -> int:
    """``streamed`` by the format's parser alone (no wrappers): ``factory`` makes it."""
    parser = StreamingToolCallParser(fmt, TOOLS, factory=factory)
    feed = parser.feed
    count = 0
    for chunk in chunks:
        count += len(feed(chunk))
    return count + len(parser.finish())


def repeated(times: int, text: str, fmt: ToolCallFormat) -> None:
    """Parse ``text`` whole, ``times`` times (each a response of its own)."""
    for _ in range(times):
        parse_tool_calls(text, fmt)


def mb_per_s(size: int, seconds: float) -> float:
    """Throughput in MB/s (10^6 characters per second)."""
    return size / seconds / 1e6


def well_formed(document: str) -> bytes:
    """``document`` as the bytes lxml reads (wrapped in a root element if it is several calls);
    it must be well formed: the floor reads the same calls."""
    data = document.encode()
    try:
        etree.fromstring(data)
    except etree.XMLSyntaxError:
        data = b"<response>" + data + b"</response>"
        etree.fromstring(data)
    return data


# -- autobyteus 1.4.4, when installed --------------------------------------------------------

def autobyteus_parser() -> Callable[[list[str]], int] | None:
    """A function feeding chunks to autobyteus's XML tool-call parser the way its agents do
    (``ParsingStreamingResponseHandler``, parser "xml"); None when autobyteus is not installed."""
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            # Its import prints a banner; nothing of it is measured.
            module = importlib.import_module(
                "autobyteus.agent.streaming.handlers.parsing_streaming_response_handler")
    except ImportError:
        return None
    handler_class: Any = module.ParsingStreamingResponseHandler

    def parse(chunks: list[str]) -> int:
        handler = handler_class(parser_name="xml")
        for chunk in chunks:
            handler.feed(chunk)
        handler.finalize()
        return len(handler.get_all_invocations())

    return parse


# -- part 1: XML where the input is structure ------------------------------------------------

@dataclass
class XmlCase:
    label: str
    text: str
    tools: ToolRegistry | None
    goal: str
    floor_document: str = ""
    """The well-formed document lxml reads (default: the text itself)."""


def same_calls_document(size: int) -> str:
    """A well-formed XML document of the mixed response's calls, about ``size`` characters."""
    call = formatter_for("xml").format_call("write_file", {"path": "a", "content": ARGUMENT})
    return "<calls>" + call * (size // len(call)) + "</calls>"


def xml_rows(quick: bool, repeats: int) -> None:
    autobyteus = autobyteus_parser()
    mixed_size = 200_000 if quick else 1_000_000
    cases = [
        XmlCase(f"argument-dense: {2_000 if quick else 20_000:,} <item>s in one call",
                argument_dense(2_000 if quick else 20_000), None, ">= 20 MB/s"),
        XmlCase(f"many small calls: {200 if quick else 2_000:,} calls, tools given",
                small_calls(200 if quick else 2_000), TOOLS, ">= 10 MB/s"),
        XmlCase("tag-dense response (10 KB)", tag_dense(10_000), TOOLS,
                ">= 0.3x lxml; >= autobyteus"),
        XmlCase("mixed response (part 2's xml input)", response("xml", mixed_size), None,
                ">= autobyteus", same_calls_document(mixed_size)),
    ]
    print("## XML where the input is structure\n")
    if autobyteus is None:
        print("autobyteus not installed: its columns read n/a (pip install autobyteus==1.4.4)\n")
    print("| input | size | calls | batch MB/s | lxml MB/s (floor) | batch / lxml "
          "| 16-char stream MB/s | stream / batch per byte | autobyteus batch MB/s "
          "| batch / autobyteus | autobyteus 16-char MB/s | stream / autobyteus | goal |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for case in cases:
        text, tools = case.text, case.tools
        found = parse_tool_calls(text, "xml", tools)
        assert not found.errors, found.errors[:1]
        scale = 1 if len(text) > 100_000 else 10  # short inputs: more runs for a steady best
        chunks = chunks_of(text, STREAM_CHUNK)
        document = well_formed(case.floor_document or text)
        batch, stream, lxml_time = best_of_each(
            repeats * scale, partial(parse_tool_calls, text, "xml", tools),
            partial(streamed, chunks, "xml", tools), partial(etree.fromstring, document))
        ours, ours_streamed = mb_per_s(len(text), batch), mb_per_s(len(text), stream)
        floor = mb_per_s(len(document), lxml_time)
        theirs = ["n/a"] * 4
        if autobyteus is not None:
            whole, few = [text], max(1, repeats // 2) * scale
            assert autobyteus(whole) == autobyteus(chunks) == len(found.invocations)
            their_batch = mb_per_s(len(text), best_of(few, partial(autobyteus, whole)))
            their_stream = mb_per_s(len(text), best_of(few, partial(autobyteus, chunks)))
            theirs = [f"{their_batch:.1f}", f"{ours / their_batch:.2f}x", f"{their_stream:.2f}",
                      f"{ours_streamed / their_stream:.2f}x"]
        print(f"| {case.label} | {len(text) / 1e3:.0f} KB | {len(found.invocations)} "
              f"| {ours:.1f} | {floor:.0f} | {ours / floor:.2f}x | {ours_streamed:.2f} "
              f"| {stream / batch:.2f}x | {' | '.join(theirs)} | {case.goal} |")
    print()


# -- part 2: every format on the mixed response ----------------------------------------------

def mixed_rows(quick: bool, repeats: int) -> None:
    big, small = (200_000, 10_000) if quick else (1_000_000, 10_000)
    arguments: dict[str, Any] = {"path": "a", "content": ARGUMENT}
    count = big // len(ARGUMENT)
    json_doc = json.dumps([{"name": "write_file", "arguments": arguments}] * count)
    json_ref = mb_per_s(len(json_doc), best_of(repeats, lambda: json.loads(json_doc)))
    xml_doc = well_formed(same_calls_document(len(json_doc)))
    lxml_ref = mb_per_s(len(xml_doc), best_of(repeats, partial(etree.fromstring, xml_doc)))
    print("## Every format on a mixed response\n")
    print(f"reference: json.loads {json_ref:.0f} MB/s, lxml.etree.fromstring {lxml_ref:.0f} MB/s "
          f"({len(json_doc) / 1e6:.2f} MB documents of the same calls)\n")
    print("| format | size | calls | batch MB/s | 16-char MB/s | 16-char stream / batch per byte "
          "| 16-char cost beyond batch, us per chunk | 1-char MB/s | per-byte cost 1 MB / 10 KB |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for fmt in ToolCallFormat:
        text, tiny = response(fmt.value, big), response(fmt.value, small)
        found = len(parse_tool_calls(text, fmt).invocations)
        chunks, ones = chunks_of(text, STREAM_CHUNK), chunks_of(text, 1)
        batch, sixteen = best_of_each(repeats, partial(parse_tool_calls, text, fmt),
                                      partial(streamed, chunks, fmt.value))
        one = best_of(1, partial(streamed, ones, fmt.value))
        times = len(text) // len(tiny)  # as many small responses as make one big one
        big_again, tinies = best_of_each(repeats, partial(parse_tool_calls, text, fmt),
                                         partial(repeated, times, tiny, fmt))
        linearity = (big_again / len(text)) / (tinies / (times * len(tiny)))
        print(f"| {fmt.value} | {len(text) / 1e6:.2f} MB | {found} "
              f"| {mb_per_s(len(text), batch):.0f} | {mb_per_s(len(text), sixteen):.1f} "
              f"| {sixteen / batch:.2f}x | {(sixteen - batch) / len(chunks) * 1e6:.2f} "
              f"| {mb_per_s(len(text), one):.2f} | {linearity:.2f}x |")
    print("\nnative passes text through: its cost per chunk is the streaming API's floor "
          "(StreamingToolCallParser.feed and one TextDelta).\n")


# -- part 3: many small calls in every format --------------------------------------------

SMALL_CALLS = 2_000


def small_calls_in(fmt: str, count: int) -> str:
    """``count`` small calls as the format's formatter writes them, one after another (the
    named input of goal 3 in issue 40: per byte, the most per-call work a stream can meet)."""
    formatter = formatter_for(fmt)
    return "\n".join(formatter.format_call("write_file", {"path": f"src/m{n}.py",
                                                          "content": "pass"})
                      for n in range(count))


def small_call_rows(quick: bool, repeats: int) -> None:
    count = 200 if quick else SMALL_CALLS
    print(f"## {count:,} small calls in every format, whole and in {STREAM_CHUNK}-character "
          "chunks\n")
    print("| format | size | calls | batch MB/s | 16-char MB/s | 16-char stream / batch "
          "| lxml MB/s (same calls) | batch / lxml | stream / lxml | goal |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for fmt in ToolCallFormat:
        if fmt is ToolCallFormat.NATIVE:
            continue
        text = small_calls_in(fmt.value, count)
        found = parse_tool_calls(text, fmt, TOOLS)
        assert len(found.invocations) == count and not found.errors, found.errors[:1]
        chunks = chunks_of(text, STREAM_CHUNK)
        assert streamed(chunks, fmt.value, TOOLS) > 0
        works: list[Callable[[], object]] = [partial(parse_tool_calls, text, fmt, TOOLS),
                                             partial(streamed, chunks, fmt.value, TOOLS)]
        document = well_formed(text) if fmt is ToolCallFormat.XML else b""
        if document:
            works.append(partial(etree.fromstring, document))
        batch, stream, *floor = best_of_each(repeats * 3, *works)
        lxml = ["n/a"] * 3
        if floor:
            lxml_rate = mb_per_s(len(document), floor[0])
            lxml = [f"{lxml_rate:.0f}", f"{mb_per_s(len(text), batch) / lxml_rate:.2f}x",
                    f"{mb_per_s(len(text), stream) / lxml_rate:.2f}x"]
        goal = "<= 1.5x" + ("; batch >= 0.3x lxml" if floor else "")
        print(f"| {fmt.value} | {len(text) / 1e3:.0f} KB | {count:,} "
              f"| {mb_per_s(len(text), batch):.1f} | {mb_per_s(len(text), stream):.1f} "
              f"| {stream / batch:.2f}x | {' | '.join(lxml)} | {goal} |")
    print()


def wrapper_rows(quick: bool, repeats: int) -> None:
    """Each format's stream with and without the wrappers, against its whole text."""
    from autobyteus_like.formats._registry import _BUILTIN, _load

    count = 200 if quick else SMALL_CALLS
    print(f"## {count:,} small calls: what the wrappers add to a stream (us a call)\n")
    print("| format | whole | 16-char stream, parser alone | with the wrappers | wrappers' share "
          "| stream / whole, alone | with the wrappers |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for fmt in ToolCallFormat:
        if fmt is ToolCallFormat.NATIVE:
            continue
        _, reference, options = _BUILTIN[fmt]
        parser = _load("parsers", reference)
        alone = partial(parser, **options) if options else parser
        text = small_calls_in(fmt.value, count)
        chunks = chunks_of(text, STREAM_CHUNK)
        bare = partial(streamed_alone, chunks, fmt.value, alone)
        assert bare() == streamed(chunks, fmt.value, TOOLS)
        whole, plain, wrapped = best_of_each(repeats * 3, partial(parse_tool_calls, text, fmt,
                                                                   TOOLS),
                                             bare, partial(streamed, chunks, fmt.value, TOOLS))
        us = [seconds / count * 1e6 for seconds in (whole, plain, wrapped)]
        print(f"| {fmt.value} | {us[0]:.1f} | {us[1]:.1f} | {us[2]:.1f} | {us[2] - us[1]:.1f} "
              f"| {plain / whole:.2f}x | {wrapped / whole:.2f}x |")
    print()


def main() -> None:
    """Run the measurements and print Markdown tables."""
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("--quick", action="store_true", help="smaller inputs, fewer repeats")
    args.add_argument("--small-calls", action="store_true",
                      help="only part 3: 2,000 small calls in every format")
    args.add_argument("--wrappers", action="store_true",
                      help="only the wrappers' share of part 3's streams")
    options = args.parse_args()
    quick = options.quick
    repeats = 3 if quick else 7
    if options.wrappers:
        wrapper_rows(quick, repeats)
        return
    if options.small_calls:
        small_call_rows(quick, repeats)
        return
    xml_rows(quick, repeats)
    mixed_rows(quick, repeats)
    small_call_rows(quick, repeats)


if __name__ == "__main__":
    main()

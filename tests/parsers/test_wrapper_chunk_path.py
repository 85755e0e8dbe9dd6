"""The chunk path of the two wrappers every text format sits in (``EntityRepair`` around
``OpenModelShapes``): a plain chunk goes straight to the format's parser and its events to the
shapes' reading. Whatever falls across a chunk boundary (an entity, an escaped opener, an open
model's shape, a code fence's marker) must give the events the whole text gives."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from autobyteus_like.formats import formatter_for, parse_tool_calls
from autobyteus_like.parsers import ParseResult
from tests.parsers.chunked_parsing import parse_cut_at
from tests.sample_tools import write_file

FORMATS = ["xml", "json", "openai", "gemini", "execute", "tool_call"]

PIECES = [
    "Plain prose, nothing to act on. ",
    "a &amp; b &lt;c&gt; &#34;d&#34; ",  # entities that open no call
    "Then {&#34;name&#34;: &#34;write_file&#34;, &#34;arguments&#34;: {&#34;path&#34;: "
    "&#34;j.txt&#34;, &#34;content&#34;: &#34;u&#34;}}\n",  # an escaped JSON call
    "&lt;tool_call&gt;{&#34;name&#34;: &#34;write_file&#34;, &#34;arguments&#34;: "
    "{&#34;path&#34;: &#34;e.txt&#34;, &#34;content&#34;: &#34;x &amp; y&#34;}}"
    "&lt;/tool_call&gt;",  # an escaped call: from here on the reply is unescaped
    '<function=write_file>{"path": "f.txt", "content": "z"}</function>\n',
    "[write_file(path='p.txt', content='q')]\n",
    "\n```\n<write_file><path>g.txt</path><content>w</content></write_file>\n```\n",
    "\n~~~~\nfenced [x] <y> text\n~~~~\n",
    "<write_file><path>h.txt</path><content>v</content></write_file>\n",
    "x < y and [z] { w } ",
]


def own_call(fmt: str) -> str:
    return formatter_for(fmt).format_call("write_file", {"path": "o.txt", "content": "c"})


def summary(result: ParseResult) -> tuple[object, ...]:
    return ([(c.name, c.arguments) for c in result.invocations], result.text,
            [(e.message, e.raw_text) for e in result.errors])


@pytest.mark.parametrize("fmt", FORMATS)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_whatever_a_chunk_boundary_cuts_streams_as_it_reads_whole(fmt, data):
    pieces = data.draw(st.lists(st.sampled_from([*PIECES, own_call(fmt) + "\n"]),
                                min_size=1, max_size=5))
    text = "".join(pieces)
    cuts = data.draw(st.lists(st.integers(0, len(text)), max_size=40))
    whole = parse_tool_calls(text, fmt, [write_file])
    assert summary(parse_cut_at(text, fmt, cuts, [write_file])) == summary(whole)


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_single_cut_of_each_piece_streams_as_it_reads_whole(fmt):
    for text in [*PIECES, own_call(fmt)]:
        whole = summary(parse_tool_calls(text, fmt, [write_file]))
        for cut in range(1, len(text)):
            assert summary(parse_cut_at(text, fmt, [cut], [write_file])) == whole, (text, cut)

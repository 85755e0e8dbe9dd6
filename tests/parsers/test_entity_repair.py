"""Call markup that arrives HTML-entity-escaped (llama.cpp's autoescaped chat templates) is read
as markup in every text format, whole and streamed in any chunking; prose before it stays."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from autobyteus_like.formats import parse_tool_calls
from autobyteus_like.parsers._parse_events import ParseResult
from tests.parsers.chunked_parsing import parse_cut_at
from tests.sample_tools import write_file

ESCAPED = {
    "xml": 'Sure &amp; fine.\n```xml\n&lt;tool name=&#34;write_file&#34;&gt;&lt;arguments&gt;'
           '&lt;arg name=&#34;path&#34;&gt;a.txt&lt;/arg&gt;&lt;arg name=&#34;content&#34;&gt;'
           'x &amp;amp; y&lt;/arg&gt;&lt;/arguments&gt;&lt;/tool&gt;\n```',
    "json": 'Sure &amp; fine. {&#34;name&#34;: &#34;write_file&#34;, &#34;arguments&#34;: '
            '{&#34;path&#34;: &#34;a.txt&#34;, &#34;content&#34;: &#34;x &amp; y&#34;}}',
    "openai": 'Sure &amp; fine. {&quot;name&quot;: &quot;write_file&quot;, '
              '&quot;arguments&quot;: {&quot;path&quot;: &quot;a.txt&quot;, '
              '&quot;content&quot;: &quot;x &amp; y&quot;}}',
    "tool_call": 'Sure &amp; fine. &lt;TOOL_CALL&gt;{&#34;tool&#34;: &#34;write_file&#34;, '
                 '&#34;args&#34;: {&#34;path&#34;: &#34;a.txt&#34;, &#34;content&#34;: '
                 '&#34;x &amp; y&#34;}}&lt;/TOOL_CALL&gt;',
    "execute": 'Sure &amp; fine. &lt;execute&gt;[{&#34;name&#34;: &#34;write_file&#34;, '
               '&#34;arguments&#34;: {&#34;path&#34;: &#34;a.txt&#34;, &#34;content&#34;: '
               '&#34;x &amp; y&#34;}}]&lt;/execute&gt;',
}


def streamed(text: str, fmt: str, cuts: list[int]) -> ParseResult:
    return parse_cut_at(text, fmt, cuts, [write_file])


@pytest.mark.parametrize("fmt", ESCAPED)
def test_escaped_calls_are_read_and_prose_before_them_stays(fmt):
    result = parse_tool_calls(ESCAPED[fmt], fmt, [write_file])
    assert [(c.name, c.arguments) for c in result.invocations] == [
        ("write_file", {"path": "a.txt", "content": "x & y"})]
    assert result.errors == [] and result.text.startswith("Sure &amp; fine.")


@pytest.mark.parametrize("fmt", ESCAPED)
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_streamed_in_any_chunking_equals_whole(fmt, data):
    text = ESCAPED[fmt]
    cuts = data.draw(st.lists(st.integers(0, len(text)), max_size=12))
    whole = parse_tool_calls(text, fmt, [write_file])
    parts = streamed(text, fmt, cuts)
    assert [(c.name, c.arguments) for c in parts.invocations] == [
        (c.name, c.arguments) for c in whole.invocations]
    assert (parts.text, parts.errors) == (whole.text, whole.errors)


def test_escaped_text_that_is_no_call_stays_as_written():
    text = "Write &lt;b&gt;bold&lt;/b&gt; and &quot;quote&quot; &amp; more"
    for fmt in ESCAPED:
        assert parse_tool_calls(text, fmt, [write_file]).text == text

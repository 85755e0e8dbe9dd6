"""Properties that hold for every format: streaming equals batch, and nothing escapes.

Hostile alphabets included: lone surrogates raw and escaped, integers too long for Python,
nesting past the limit, in prose, inside calls and inside arguments, under any chunking.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from autobyteus_like.formats import TEXT_FORMATS, formatter_for, parse_tool_calls
from autobyteus_like.parsers._limits import MAX_NESTING_DEPTH
from tests.parsers.chunked_parsing import parse_in_chunks
from tests.sample_tools import sample_registry
from tests.stress_rounds import rounds

FORMATS = [f.value for f in TEXT_FORMATS]
TRICKY = st.sampled_from([*'<>{}[]"\\&;/!-: \n',
    "<tool", "</tool>", "<arg", "</arg>", "<item>", "<![CDATA[", "]]>", "<execute>",
    "</execute>", "<think>", "</think>", "<TOOL_CALL>", "</TOOL_CALL>", '{"name": ', '"arguments"',
    "&lt;", "\\u00", "```json\n", "```",
])
PROSE = st.lists(st.one_of(TRICKY, st.text(max_size=6)), max_size=8).map("".join)
ANY_CHARACTER = st.one_of(  # st.text() leaves lone surrogates out; these put them in, often
    st.characters(exclude_categories=()), st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF)
)
DEEP = MAX_NESTING_DEPTH + 1
DIGITS = "9" * 5_000  # more than Python's int() converts
HOSTILE = st.sampled_from([
    "\ud800", "\udfff", "\\ud800", "\\udc00x", "&#55296;", DIGITS, "-" + DIGITS,
    "[" * DEEP, "]" * DEEP, '{"a": ' * DEEP, "}" * DEEP, "<item>" * DEEP, "</item>" * DEEP,
    '<arg name="a">' * DEEP, "</arg>" * DEEP, '{"tool_calls": [{"id": "c1", "function": ',
    '{"function": {"name": "f", "arguments": {}}', '"id": "\ud800", ', "[" * 3_000,
])
HOSTILE_TEXT = st.lists(
    st.one_of(HOSTILE, TRICKY, st.text(alphabet=ANY_CHARACTER, max_size=6)), max_size=10
).map("".join)
# Argument values written as raw text, as a model would, inside the call templates below.
JSON_PAYLOADS = st.one_of(
    st.text(alphabet=ANY_CHARACTER, max_size=6).map(
        lambda t: '"' + t.replace("\\", "").replace('"', "") + '"'),
    st.sampled_from([
        '"\\ud800"', '"a\\udfffb"', DIGITS, "-" + DIGITS, f'"{DIGITS}"', "1e99999",
        "[" * (DEEP - 3) + "]" * (DEEP - 3), "[" * DEEP + "]" * DEEP,
        "[" * 3_000 + "]" * 3_000, '{"a": ' * DEEP + "1" + "}" * DEEP,
        '[{"name": "g", "arguments": {}}]', '{"function": {"name": "g", "arguments": {}}}',
    ]),
)
XML_PAYLOADS = st.one_of(
    st.text(alphabet=ANY_CHARACTER, max_size=6).map(
        lambda t: t.replace("&", "&amp;").replace("<", "&lt;")),
    st.sampled_from([
        DIGITS, "<item>" * DEEP + "1" + "</item>" * DEEP, "<item>" * 99 + "1" + "</item>" * 99,
        '<arg name="a">' * DEEP + "1" + "</arg>" * DEEP, "<item>" * 3_000, "</arg>" * 3_000,
    ]),
)
CALL_TEMPLATES = {
    "json": '{{"name": "{name}", "arguments": {{"{arg}": {value}}}}}',
    "openai": '{{"tool_calls": [{{"id": "c1", "type": "function", "function": {{"name": "{name}",'
              ' "arguments": {{"{arg}": {value}}}}}}}]}}',
    "gemini": '{{"functionCall": {{"name": "{name}", "args": {{"{arg}": {value}}}}}}}',
    "execute": '<execute>[{{"name": "{name}", "args": {{"{arg}": {value}}}}}]</execute>',
    "tool_call": '<TOOL_CALL>{{"tool": "{name}", "args": {{"{arg}": {value}}}}}</TOOL_CALL>',
    "xml": '<tool name="{name}"><arguments><arg name="{arg}">{value}</arg></arguments></tool>',
}


@st.composite
def hostile_responses(draw: st.DrawFn, fmt: str) -> str:
    """Hostile prose around calls whose argument values are hostile, some calls damaged."""
    pieces = []
    for _ in range(draw(st.integers(1, 3))):
        pieces.append(draw(HOSTILE_TEXT))
        call = CALL_TEMPLATES[fmt].format(
            name=draw(st.sampled_from(["f", "everything", "write_file", "f\ud800"])),
            arg=draw(st.sampled_from(["x", "count", "ratio", "numbers", "grid", "content"])),
            value=draw(XML_PAYLOADS if fmt == "xml" else JSON_PAYLOADS),
        )
        at = draw(st.integers(0, len(call)))
        damage = draw(st.sampled_from(["none", "none", "cut", "insert"]))
        if damage == "cut":
            call = call[:at]
        elif damage == "insert":
            call = call[:at] + draw(st.one_of(TRICKY, HOSTILE)) + call[at:]
        pieces.append(call)
    pieces.append(draw(HOSTILE_TEXT))
    return "".join(pieces)


VALUES = st.recursive(
    st.one_of(st.text(max_size=8), st.text(alphabet=ANY_CHARACTER, max_size=4),
              st.integers(-5, 5), st.booleans(), st.just("9" * 5_000)),
    lambda inner: st.one_of(st.lists(inner, max_size=3),
                            st.dictionaries(st.sampled_from(["a", "b", "c"]), inner, max_size=3)),
    max_leaves=6,
)


@st.composite
def responses(draw: st.DrawFn, fmt: str) -> str:
    """Prose with well-formed calls, some of them damaged, in between."""
    pieces = []
    for _ in range(draw(st.integers(0, 4))):
        pieces.append(draw(PROSE))
        args = draw(st.dictionaries(st.sampled_from(["path", "x", "y", "why"]), VALUES,
                                    max_size=3))
        call = formatter_for(fmt).format_call(draw(st.sampled_from(["f", "write_file"])), args)
        damage = draw(st.sampled_from(["none", "none", "cut", "insert", "insert", "delete"]))
        at = draw(st.integers(0, len(call)))
        if damage == "cut":
            call = call[:at]
        elif damage == "insert":
            call = call[:at] + draw(st.one_of(TRICKY, HOSTILE)) + call[at:]
        elif damage == "delete":
            call = call[:at] + call[at + 3:]
        pieces.append(call)
    pieces.append(draw(PROSE))
    return "".join(pieces)


def _same(text: str, fmt: str, sizes: list[int]) -> None:
    registry = sample_registry()
    whole = parse_tool_calls(text, fmt, registry)
    streamed = parse_in_chunks(text, fmt, sizes, registry)
    assert streamed.invocations == whole.invocations
    assert streamed.errors == whole.errors
    assert streamed.text == whole.text


@pytest.mark.slow  # generated replies per format, each streamed in chunks (150 when deep)
@pytest.mark.parametrize("fmt", FORMATS)
@settings(max_examples=rounds(50, 150), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), sizes=st.lists(st.integers(1, 9), min_size=1, max_size=6))
def test_streaming_equals_batch_for_every_chunking(fmt, data, sizes):
    _same(data.draw(responses(fmt)), fmt, sizes)


@pytest.mark.parametrize("fmt", FORMATS)
@settings(max_examples=150, deadline=None)
@given(text=st.text(), sizes=st.lists(st.integers(1, 5), min_size=1, max_size=4))
def test_arbitrary_text_never_raises_and_streams_the_same(fmt, text, sizes):
    _same(text, fmt, sizes)


@pytest.mark.slow  # generated replies per format, each streamed in chunks (150 when deep)
@pytest.mark.parametrize("fmt", FORMATS)
@settings(max_examples=rounds(50, 150), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), sizes=st.lists(st.integers(1, 400), min_size=1, max_size=4))
def test_hostile_text_never_raises_and_streams_the_same(fmt, data, sizes):
    _same(data.draw(hostile_responses(fmt)), fmt, sizes)


@pytest.mark.parametrize("fmt", FORMATS)
@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_prose_without_calls_comes_back_unchanged(fmt, data):
    text = data.draw(st.text(alphabet=st.characters(blacklist_characters="<{[")))
    result = parse_tool_calls(text, fmt)
    assert result.invocations == [] and result.errors == [] and result.text == text

"""Properties that hold for every format: streaming equals batch, and nothing escapes."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from autobyteus_like import ToolCallFormat
from autobyteus_like.formatters import formatter_for
from autobyteus_like.parsers import parse_tool_calls
from tests.parsers.helpers import parse_in_chunks
from tests.sample_tools import sample_registry

FORMATS = [f.value for f in ToolCallFormat]
TRICKY = st.sampled_from([*'<>{}[]"\\&;/!-: \n',
    "<tool", "</tool>", "<arg", "</arg>", "<item>", "<![CDATA[", "]]>", "<execute>",
    "</execute>", "<think>", "</think>", "<TOOL_CALL>", "</TOOL_CALL>", '{"name": ', '"arguments"',
    "&lt;", "\\u00", "```json\n", "```",
])
PROSE = st.lists(st.one_of(TRICKY, st.text(max_size=6)), max_size=8).map("".join)
VALUES = st.recursive(
    st.one_of(st.text(max_size=8), st.integers(-5, 5), st.booleans()),
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
        damage = draw(st.sampled_from(["none", "none", "cut", "insert", "delete"]))
        at = draw(st.integers(0, len(call)))
        if damage == "cut":
            call = call[:at]
        elif damage == "insert":
            call = call[:at] + draw(TRICKY) + call[at:]
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


@pytest.mark.parametrize("fmt", FORMATS)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), sizes=st.lists(st.integers(1, 9), min_size=1, max_size=6))
def test_streaming_equals_batch_for_every_chunking(fmt, data, sizes):
    _same(data.draw(responses(fmt)), fmt, sizes)


@pytest.mark.parametrize("fmt", FORMATS)
@settings(max_examples=150, deadline=None)
@given(text=st.text(), sizes=st.lists(st.integers(1, 5), min_size=1, max_size=4))
def test_arbitrary_text_never_raises_and_streams_the_same(fmt, text, sizes):
    _same(text, fmt, sizes)


@pytest.mark.parametrize("fmt", FORMATS)
@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_prose_without_calls_comes_back_unchanged(fmt, data):
    text = data.draw(st.text(alphabet=st.characters(blacklist_characters="<{[")))
    result = parse_tool_calls(text, fmt)
    assert result.invocations == [] and result.errors == [] and result.text == text

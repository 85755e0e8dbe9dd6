"""An example inside a Markdown code fence is text for the tag-named open-model shape, and only
for it; a call outside the fence still runs; streamed in any chunking equals whole."""

from __future__ import annotations

from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from autobyteus_like.formats import TEXT_FORMATS, formatter_for, parse_tool_calls
from autobyteus_like.parsers import ParseResult
from autobyteus_like.parsers._code_fences import CodeFences
from tests.parsers.chunked_parsing import parse_cut_at
from tests.sample_tools import write_file

FORMATS = [f.value for f in TEXT_FORMATS]
EXAMPLE = "<write_file><path>a.ts</path><content>x</content></write_file>"
REAL = "<write_file><path>b.ts</path><content>y</content></write_file>"
FENCED = {
    "backticks": f"To write a file, say:\n```xml\n{EXAMPLE}\n```\nThat is all.",
    "tildes": f"To write a file, say:\n~~~\n{EXAMPLE}\n~~~\n",
    "in a list item": f"Steps:\n1. Write it:\n   ```xml\n   {EXAMPLE}\n   ```\n",
    "after a longer fence's shorter line": f"````\n```\n{EXAMPLE}\n````\n",
    "at the reply's start, CRLF lines": f"```\r\n{EXAMPLE}\r\n```\r\n",
    "unclosed, to the end": f"Example:\n```\n{EXAMPLE}\nand more text",
    "on the fence's own line": f"``` {EXAMPLE}\n```",
}


def _calls(result: ParseResult) -> list[tuple[str, dict[str, object]]]:
    return [(c.name, c.arguments) for c in result.invocations]


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("case", FENCED)
def test_a_tag_named_example_in_a_fence_is_text(case, fmt):
    text = FENCED[case]
    result = parse_tool_calls(text, fmt, [write_file])
    assert result.invocations == [] and result.errors == []
    assert result.text == text


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_call_after_the_fence_in_the_same_reply_still_runs(fmt):
    text = f"For example:\n```xml\n{EXAMPLE}\n```\nNow for real: {REAL}\n```\n{EXAMPLE}"
    result = parse_tool_calls(text, fmt, [write_file])
    assert _calls(result) == [("write_file", {"path": "b.ts", "content": "y"})]
    assert result.errors == []


@pytest.mark.parametrize("text", [
    f"``x``\n{REAL}",  # two backticks: inline code, no fence
    f"a ```\n{REAL}",  # not at the line's start
    f"```\ncode\n```\n{REAL}",  # closed before
    f"```py\n```\n{REAL}",
    f"```\n``` trailing words do not close it, so this line is inside\n```\n{REAL}",
])
def test_what_is_no_open_fence_leaves_the_call_running(text):
    assert _calls(parse_tool_calls(text, "json", [write_file])) == [
        ("write_file", {"path": "b.ts", "content": "y"})]


@pytest.mark.parametrize("fmt", FORMATS)
def test_the_formats_own_calls_and_the_other_shapes_stay_calls_in_a_fence(fmt):
    own = formatter_for(fmt).format_call("write_file", {"path": "b.ts", "content": "y"})
    pythonic = "[write_file(path='b.ts', content='y')]"
    function = '<function=write_file>{"path": "b.ts", "content": "y"}</function>'
    for call in (own, pythonic, function):
        text = f"Calling it:\n```\n{call}\n```\n"
        assert _calls(parse_tool_calls(text, fmt, [write_file])) == [
            ("write_file", {"path": "b.ts", "content": "y"})], call


def test_a_fence_inside_a_calls_argument_opens_no_fence_in_the_prose():
    own = ('<tool name="write_file"><arguments><arg name="path">r.md</arg>'
           '<arg name="content">```bash\nrm -rf /</arg></arguments></tool>')
    text = f"{own}\n{REAL}"
    assert [c.arguments["path"] for c in parse_tool_calls(text, "xml", [write_file]
                                                          ).invocations] == ["r.md", "b.ts"]


def test_a_fence_right_after_a_call_on_its_line_is_no_fence():
    text = f'{{"name": "write_file", "arguments": {{"path": "r", "content": ""}}}}```\n{REAL}'
    assert len(parse_tool_calls(text, "json", [write_file]).invocations) == 2


MIXED = (f"Intro {REAL}\n```xml\n{EXAMPLE}\n```\n~~~~\n{EXAMPLE}\n~~~\n~~~~~\n"
         f"then {REAL}\n```\n{EXAMPLE}")


@pytest.mark.parametrize("fmt", ["json", "xml", "execute"])
def test_streamed_cut_at_every_point_equals_whole(fmt):
    whole = parse_tool_calls(MIXED, fmt, [write_file])
    assert [c.arguments["path"] for c in whole.invocations] == ["b.ts", "b.ts"]
    for cut in range(len(MIXED) + 1):
        parts = parse_cut_at(MIXED, fmt, [cut], [write_file])
        assert _calls(parts) == _calls(whole) and parts.text == whole.text, cut
        assert parts.errors == whole.errors, cut


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_streamed_in_any_chunking_equals_whole(data):
    fmt = data.draw(st.sampled_from(FORMATS))
    text = data.draw(st.sampled_from([MIXED, *FENCED.values()]))
    cuts = data.draw(st.lists(st.integers(0, len(text)), max_size=40))
    whole = parse_tool_calls(text, fmt, [write_file])
    parts = parse_cut_at(text, fmt, cuts, [write_file])
    assert _calls(parts) == _calls(whole)
    assert parts.text == whole.text and parts.errors == whole.errors


@settings(max_examples=200, deadline=None)
@given(text=st.text(alphabet="`~ \tab<\n\r", max_size=40), cuts=st.lists(st.integers(0, 40)))
def test_the_fence_state_is_the_same_in_any_chunking(text, cuts):
    def states(pieces: list[str]) -> bool:
        fences = CodeFences()
        for piece in pieces:
            fences.feed(piece)
        return fences.inside()

    bounds = [0, *sorted({c for c in cuts if c <= len(text)}), len(text)]
    pieces = [text[a:b] for a, b in pairwise(bounds)]
    assert states(pieces) == states([text])


@pytest.mark.parametrize(("text", "inside"), [
    ("```py\n", True), ("```py\ncode\n```\n", False), ("``` a`b\n", False), ("~~~ a`b\n", True),
    ("````\n```\n", True), ("  ```\n", True), ("text ```\n", False), ("```", True),
    ("~~~\n~~~ x\n", True), ("~~~\n~~~  \r\n", False), ("``\n", False),
])
def test_where_a_fence_is(text, inside):
    fences = CodeFences()
    fences.feed(text)
    assert fences.inside() is inside


def test_a_call_on_a_marker_line_makes_it_no_fence_line():
    fences = CodeFences()
    fences.feed("```")
    fences.interrupt()
    fences.feed(" after the call\n")
    assert not fences.inside()

"""The call shapes open models write as text, read in every text format, streamed equal to
batch; a shape naming a known tool that cannot be read is a parse error, never prose."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from autobyteus_like.formats import TEXT_FORMATS, parse_tool_calls
from autobyteus_like.parsers._parse_events import ParseResult
from tests.parsers.chunked_parsing import parse_cut_at
from tests.sample_tools import write_file

WANTED = [("write_file", {"path": "a.ts", "content": "x"})]
READ = {
    "pythonic": "[write_file(path='a.ts', content='x')]",
    "pythonic, positional": "Sure. [write_file('a.ts', 'x')]",
    "function=": '<function=write_file>{"path": "a.ts", "content": "x"}</function>',
    "function name=": '<function name="write_file">{"path": "a.ts", "content": "x"}</function>',
    "qwen parameters": "<function=write_file><parameter=path>a.ts</parameter>"
                       "<parameter=content>x</parameter></function>",
    "mistral": '[TOOL_CALLS]write_file{"path": "a.ts", "content": "x"}',
    "mistral [ARGS]": '[TOOL_CALLS]write_file[ARGS]{"path": "a.ts", "content": "x"}',
    "tag-named xml": "<write_file><path>a.ts</path><content>x</content></write_file>",
    "mistral list": '[TOOL_CALLS][{"name": "write_file", "arguments": {"path": "a.ts", '
                    '"content": "x"}}]',
}
BROKEN = {
    "pythonic, not literal": ("[write_file(path=open('x'))]", "is not a literal"),
    "pythonic, bad syntax": ("[write_file(path='a',, )]", "not valid Python call syntax"),
    "tag-named, cut off": ("<write_file><path>a.ts", "cut off: no closing </write_file>"),
    "tag-named, unknown argument": ("<write_file><pth>a</pth></write_file>",
                                    "unknown arguments: pth"),
    "function=, cut off": ('<function=write_file>{"path": "a', "no closing </function>"),
}
FORMATS = [f.value for f in TEXT_FORMATS]


def streamed(text: str, fmt: str, cuts: list[int]) -> ParseResult:
    return parse_cut_at(text, fmt, cuts, [write_file])


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("shape", READ)
def test_each_shape_is_read_in_every_text_format(shape, fmt):
    result = parse_tool_calls(READ[shape], fmt, [write_file])
    assert [(c.name, c.arguments) for c in result.invocations] == WANTED
    assert result.errors == []


@pytest.mark.parametrize("shape", BROKEN)
def test_a_broken_shape_naming_a_known_tool_is_a_parse_error(shape):
    text, said = BROKEN[shape]
    for fmt in FORMATS:
        result = parse_tool_calls(text, fmt, [write_file])
        assert not result.invocations
        [error] = result.errors
        assert said in error.message and error.name == "write_file"


def test_prose_with_brackets_and_tags_stays_prose():
    text = "See [the docs](link), call f(x) [later], and <b>bold</b> <function> text."
    for fmt in FORMATS:
        assert parse_tool_calls(text, fmt, [write_file]).text == text


def test_a_shape_inside_a_formats_own_call_is_an_argument_not_a_call():
    text = ('<tool name="write_file"><arguments><arg name="path">a.ts</arg><arg name="content">'
            '[write_file(path=\'b\', content=\'c\')]</arg></arguments></tool>')
    [call] = parse_tool_calls(text, "xml", [write_file]).invocations
    assert call.arguments["content"] == "[write_file(path='b', content='c')]"


@pytest.mark.parametrize("shape", [*READ, *BROKEN])
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_streamed_in_any_chunking_equals_whole(shape, data):
    text = READ[shape] if shape in READ else BROKEN[shape][0]
    text = f"Let me do it. {text} Done."
    cuts = data.draw(st.lists(st.integers(0, len(text)), max_size=10))
    for fmt in ("json", "xml"):
        whole = parse_tool_calls(text, fmt, [write_file])
        parts = streamed(text, fmt, cuts)
        assert [(c.name, c.arguments) for c in parts.invocations] == [
            (c.name, c.arguments) for c in whole.invocations]
        assert parts.text == whole.text
        assert [e.message for e in parts.errors] == [e.message for e in whole.errors]


def test_command_r_and_a_cut_off_last_list_element():
    command_r = '[{"tool_name": "write_file", "parameters": {"path": "a.ts", "content": "x"}}]'
    result = parse_tool_calls(command_r, "json", [write_file])
    assert [(c.name, c.arguments) for c in result.invocations] == WANTED
    cut = command_r[:-1] + ', {"name": "write_file"'
    result = parse_tool_calls(cut, "json", [write_file])
    assert len(result.invocations) == 1
    [error] = result.errors
    assert "cut off" in error.message and error.name == "write_file"

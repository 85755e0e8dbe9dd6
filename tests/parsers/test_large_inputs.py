"""Inputs that make quadratic scanners crawl; here they must simply be read correctly.

Their speed is measured in benchmarks/parser_benchmark.py, not asserted here.
"""

from __future__ import annotations

import pytest

from autobyteus_like.formats import parse_tool_calls
from tests.parsers.chunked_parsing import calls, parse_in_chunks

MEGABYTE = "x = a < b && {c} [d] \"q\" &amp;\n" * 34_000


def test_twenty_thousand_items():
    items = "".join(f"<item>{n}</item>" for n in range(20_000))
    text = f'<tool name="t"><arguments><arg name="xs">{items}</arg></arguments></tool>'
    [(_, arguments)] = calls(parse_tool_calls(text, "xml"))
    assert arguments["xs"][-1] == "19999" and len(arguments["xs"]) == 20_000


@pytest.mark.parametrize("fmt", ["json", "execute", "tool_call"])
def test_twenty_thousand_unmatched_braces_then_a_call(fmt):
    call = {"json": '{"name": "f", "arguments": {}}',
            "execute": '<execute>[{"name": "f", "args": {}}]</execute>',
            "tool_call": '<TOOL_CALL>{"tool": "f", "args": {}}</TOOL_CALL>'}[fmt]
    text = "{" * 20_000 + " prose " + "[" * 20_000 + " " + call
    result = parse_tool_calls(text, fmt)
    assert calls(result) == [("f", {})]


@pytest.mark.slow  # a million one-character chunks
@pytest.mark.parametrize("fmt", ["xml", "json", "execute"])
def test_a_one_megabyte_argument_whole_and_one_character_at_a_time(fmt):
    import json

    if fmt == "xml":
        body = MEGABYTE.replace("&", "&amp;").replace("<", "&lt;")
        text = f'<tool name="w"><arguments><arg name="c">{body}</arg></arguments></tool>'
    elif fmt == "json":
        text = json.dumps({"name": "w", "arguments": {"c": MEGABYTE}})
    else:
        text = "<execute>" + json.dumps([{"name": "w", "args": {"c": MEGABYTE}}]) + "</execute>"
    assert calls(parse_tool_calls(text, fmt)) == [("w", {"c": MEGABYTE})]
    assert calls(parse_in_chunks(text, fmt, [1])) == [("w", {"c": MEGABYTE})]


def test_twenty_thousand_broken_call_wrappers_are_twenty_thousand_errors_with_their_ids():
    wrapper = ('{"tool_calls": [{"id": "c%d", "function": {"name": "f", "arguments": {"a": 1}}'
               ' and then ')
    text = "".join(wrapper % n for n in range(20_000))
    result = parse_tool_calls(text, "openai")
    assert result.invocations == []
    assert [e.id for e in result.errors] == [f"c{n}" for n in range(20_000)]


def test_a_call_nested_two_hundred_thousand_brackets_deep_is_one_error():
    text = '{"name": "f", "arguments": {"x": ' + "[" * 200_000 + "]" * 200_000 + "}}"
    [error] = parse_tool_calls(text, "json").errors
    assert error.name == "f" and "deeper than" in error.message


def test_twenty_thousand_objects_and_twenty_thousand_members_whole_and_streamed():
    objects = "".join(f'<item><arg name="x">{n}</arg><arg name="y">{n}</arg></item>'
                      for n in range(20_000))
    members = "".join(f'<arg name="k{n}">{n}</arg>' for n in range(20_000))
    text = (f'<tool name="t"><arguments><arg name="xs">{objects}</arg>'
            f'<arg name="m">{members}</arg></arguments></tool>')
    expected = [("t", {"xs": [{"x": str(n), "y": str(n)} for n in range(20_000)],
                       "m": {f"k{n}": str(n) for n in range(20_000)}})]
    assert calls(parse_tool_calls(text, "xml")) == expected
    assert calls(parse_in_chunks(text, "xml", [16])) == expected


def test_two_thousand_simple_calls_whole_and_streamed():
    text = "\n".join(f'<tool name="w"><arguments><arg name="p">{n}</arg></arguments></tool>'
                     for n in range(2_000))
    expected = [("w", {"p": str(n)}) for n in range(2_000)]
    assert calls(parse_tool_calls(text, "xml")) == expected
    assert calls(parse_in_chunks(text, "xml", [16])) == expected

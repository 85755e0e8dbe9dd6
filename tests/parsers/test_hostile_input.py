"""What a hostile model can write into a reply. None of it may raise; each is a clean result.

Lone surrogates, integers too long for Python's ``int``, nesting deep enough to exhaust the stack,
and call wrappers cut off or broken around a complete inner call.
"""

from __future__ import annotations

import time

import pytest

from autobyteus_like import ToolArgumentError
from autobyteus_like.formats import parse_tool_calls
from autobyteus_like.parsers import InvocationIdAllocator
from autobyteus_like.parsers._call_builder import CallBuilder
from autobyteus_like.parsers._limits import MAX_NESTING_DEPTH
from tests.parsers.chunked_parsing import calls, parse_both_ways, parse_in_chunks
from tests.sample_tools import everything, sample_registry, write_file

JSON_FORMATS = ["json", "openai", "gemini"]
DIGITS = "9" * 5_000  # more than Python's int() converts (4,300 by default)


def json_call(fmt: str, name: str, arguments_json: str) -> str:
    """One call in ``fmt``, its arguments object written as given (any text, however hostile)."""
    if fmt == "execute":
        return f'<execute>[{{"name": "{name}", "args": {arguments_json}}}]</execute>'
    if fmt == "tool_call":
        return f'<TOOL_CALL>{{"tool": "{name}", "args": {arguments_json}}}</TOOL_CALL>'
    return f'{{"name": "{name}", "arguments": {arguments_json}}}'


def xml_call(name: str, body: str) -> str:
    return f'<tool name="{name}"><arguments>{body}</arguments></tool>'


# -- lone surrogates ------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", [*JSON_FORMATS, "execute", "tool_call"])
def test_a_lone_surrogate_reaches_the_arguments_unchanged_raw_or_escaped(fmt):
    text = json_call(fmt, "write_file", '{"path": "a\ud800", "content": "\\udfff"}')
    for tools in (sample_registry(), None):
        result = parse_both_ways(f"ok {text} ok", fmt, tools)
        assert calls(result) == [("write_file", {"path": "a\ud800", "content": "\udfff"})]
        assert result.errors == [] and result.invocations[0].id.startswith("call_")
    # ...and on to validation, which passes it through to the tool as it is
    assert write_file.validate_arguments(result.invocations[0].arguments) == {
        "path": "a\ud800", "content": "\udfff"}


def test_a_lone_surrogate_in_an_xml_argument():
    text = xml_call("write_file", '<arg name="path">a\ud800</arg><arg name="content">\udfff</arg>')
    result = parse_both_ways(text, "xml", sample_registry())
    assert calls(result) == [("write_file", {"path": "a\ud800", "content": "\udfff"})]


@pytest.mark.parametrize("fmt", [*JSON_FORMATS, "execute", "tool_call", "xml"])
def test_a_lone_surrogate_in_a_name_or_id_is_escaped_no_tool_has_such_a_name(fmt):
    text = ('<tool name="x\udc00" id="i\ud800"><arguments><arg name="k">v</arg></arguments></tool>'
            if fmt == "xml" else json_call(fmt, "x\udc00", '{"k": "v"}'))
    [invocation] = parse_both_ways(text, fmt).invocations
    assert (invocation.name, invocation.arguments) == ("x\\udc00", {"k": "v"})
    if fmt == "xml":
        assert invocation.id == "i\\ud800"


@pytest.mark.parametrize("fmt", [*JSON_FORMATS, "execute", "tool_call", "xml"])
def test_a_broken_call_holding_a_lone_surrogate_is_an_error(fmt):
    text = ('<tool name="f\ud800" id="i\ud800"><arguments><arg name="k">\ud800' if fmt == "xml"
            else json_call(fmt, "f\ud800", '{"k": "\ud800", }'))
    result = parse_both_ways(text, fmt)
    assert result.invocations == []
    [error] = result.errors
    assert error.name == "f\\ud800"  # escaped: the agent builds a ToolInvocation of it


# -- integers too long for Python -------------------------------------------------------------


def _count_problem(arguments: dict) -> str:
    with pytest.raises(ToolArgumentError) as caught:
        everything.validate_arguments(arguments)
    [problem] = [p for p in caught.value.problems if "'count'" in p]
    return problem


@pytest.mark.parametrize("fmt", [*JSON_FORMATS, "execute", "tool_call", "xml"])
def test_an_integer_argument_of_five_thousand_digits_is_left_for_validation(fmt):
    text = (xml_call("everything", f'<arg name="count">{DIGITS}</arg>') if fmt == "xml"
            else json_call(fmt, "everything", f'{{"count": "{DIGITS}"}}'))
    result = parse_both_ways(text, fmt, sample_registry())
    assert calls(result) == [("everything", {"count": DIGITS})]
    assert "exceeded maximum size" in _count_problem(result.invocations[0].arguments)


@pytest.mark.parametrize("fmt", [*JSON_FORMATS, "execute", "tool_call"])
def test_a_json_number_literal_of_five_thousand_digits_keeps_its_digits(fmt):
    text = json_call(fmt, "everything", f'{{"count": {DIGITS}, "limit": -{DIGITS}}}')
    for tools in (sample_registry(), None):
        result = parse_both_ways(text, fmt, tools)
        assert calls(result) == [("everything", {"count": DIGITS, "limit": f"-{DIGITS}"})]
    assert "exceeded maximum size" in _count_problem(result.invocations[0].arguments)


def test_a_huge_literal_does_not_cost_the_calls_beside_it_in_a_list():
    text = (f'[{{"name": "a", "arguments": {{}}}}, {{"name": "b", "arguments": {{"n": {DIGITS}}}}},'
            ' {"name": "c", "arguments": {"n": 1}}]')
    result = parse_both_ways(text, "json")
    assert calls(result) == [("a", {}), ("b", {"n": DIGITS}), ("c", {"n": 1})]


def test_a_long_run_of_digits_that_is_not_a_number_is_rejected_in_linear_time():
    # The old number pattern could split a run of digits two ways, so a long run followed by a
    # letter backtracked quadratically: about 10 s for these 20,000 digits (minutes for 100,000)
    # inside the agent's mailbox. A linear pattern takes well under a millisecond; 2 s of slack
    # absorbs any machine. Counted in this thread's CPU time, not wall time: on a loaded machine
    # the thread may wait seconds for a core without doing any more work.
    value = "9" * 20_000 + "x"
    text = xml_call("everything", f'<arg name="ratio">{value}</arg>')
    started = time.thread_time()
    result = parse_tool_calls(text, "xml", sample_registry())
    assert time.thread_time() - started < 2
    assert calls(result) == [("everything", {"ratio": value})]


# -- nesting deeper than the limit ------------------------------------------------------------


def nested(depth: int, kind: str) -> str:
    """``depth`` nested XML elements around a value."""
    if kind == "item":
        return "<item>" * depth + "1" + "</item>" * depth
    return '<arg name="x">' * depth + "1" + "</arg>" * depth


@pytest.mark.parametrize("kind", ["arg", "item"])
def test_xml_nesting_beyond_the_limit_is_an_error_and_the_calls_around_it_parse(kind):
    good = xml_call("ok", '<arg name="k">v</arg>')
    text = good + xml_call("deep", f'<arg name="a">{nested(100_000, kind)}</arg>') + good
    whole = parse_tool_calls(text, "xml")
    assert calls(whole) == [("ok", {"k": "v"}), ("ok", {"k": "v"})]
    [error] = whole.errors
    assert (error.index, error.name) == (1, "deep")
    assert error.message == ("the call to 'deep' is malformed: <arg>/<item> elements are nested"
                             f" deeper than {MAX_NESTING_DEPTH} levels")
    assert parse_in_chunks(text, "xml", [997, 13]) == whole


@pytest.mark.parametrize("kind", ["arg", "item"])
def test_xml_nesting_up_to_the_limit_parses_and_one_more_level_does_not(kind):
    # the outermost <arg name="a"> is one level
    at_limit = xml_call("t", f'<arg name="a">{nested(MAX_NESTING_DEPTH - 1, kind)}</arg>')
    [(_, arguments)] = calls(parse_both_ways(at_limit, "xml"))
    value = arguments["a"]
    for _ in range(MAX_NESTING_DEPTH - 2):
        value = value["x"] if kind == "arg" else value[0]
    assert value == ({"x": "1"} if kind == "arg" else ["1"])
    beyond = xml_call("t", f'<arg name="a">{nested(MAX_NESTING_DEPTH, kind)}</arg>')
    result = parse_both_ways(beyond, "xml")
    assert result.invocations == [] and len(result.errors) == 1


def deep_json(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.mark.parametrize("fmt", JSON_FORMATS)
def test_json_nesting_beyond_the_limit_is_an_error_and_the_calls_beside_it_run(fmt):
    text = ('[{"name": "a", "arguments": {}}, '
            f'{{"id": "d1", "name": "deep", "arguments": {{"x": {deep_json(100_000)}}}}}, '
            '{"name": "c", "arguments": {}}] and {"name": "e", "arguments": {}}')
    whole = parse_tool_calls(text, fmt)
    assert calls(whole) == [("a", {}), ("c", {}), ("e", {})]
    [error] = whole.errors
    assert (error.index, error.name, error.id) == (1, "deep", "d1")
    assert error.message == (
        f"the tool call is refused: it nests deeper than {MAX_NESTING_DEPTH} levels, the limit")
    assert parse_in_chunks(text, fmt, [997, 13]) == whole


@pytest.mark.parametrize("fmt", ["execute", "tool_call"])
def test_json_nesting_beyond_the_limit_in_a_marked_block(fmt):
    text = (json_call(fmt, "a", "{}") + json_call(fmt, "deep", f'{{"x": {deep_json(100_000)}}}')
            + json_call(fmt, "c", "{}"))
    whole = parse_tool_calls(text, fmt)
    assert calls(whole) == [("a", {}), ("c", {})]
    [error] = whole.errors
    assert (error.index, error.name) == (1, "deep")
    assert error.message.endswith(
        f"block: it nests deeper than {MAX_NESTING_DEPTH} levels, the limit")
    assert parse_in_chunks(text, fmt, [997, 13]) == whole


@pytest.mark.parametrize("fmt", [*JSON_FORMATS, "execute", "tool_call"])
def test_json_nesting_up_to_the_limit_parses_and_one_more_level_does_not(fmt):
    wrapper = {"execute": 3, "tool_call": 2}.get(fmt, 2)  # levels the call itself takes
    inside = MAX_NESTING_DEPTH - wrapper
    at_limit = json_call(fmt, "f", f'{{"x": {deep_json(inside)}}}')
    [(_, arguments)] = calls(parse_both_ways(at_limit, fmt))
    value = arguments["x"]
    for _ in range(inside - 1):
        [value] = value
    assert value == []
    beyond = json_call(fmt, "f", f'{{"x": {deep_json(inside + 1)}}}')
    result = parse_both_ways(beyond, fmt)
    assert result.invocations == [] and len(result.errors) == 1


def test_arguments_given_as_a_json_string_obey_the_same_limit():
    def openai(depth: int) -> str:
        return ('{"id": "c7", "function": {"name": "f", "arguments": "{\\"x\\": '
                + deep_json(depth) + '}"}}')

    [(_, arguments)] = calls(parse_both_ways(openai(MAX_NESTING_DEPTH - 1), "openai"))
    assert "x" in arguments
    for depth in (MAX_NESTING_DEPTH, 100_000):
        [error] = parse_both_ways(openai(depth), "openai").errors
        assert (error.id, error.name) == ("c7", "f")
        assert error.message == ("invalid_json: the arguments of 'f' are not valid JSON (it nests "
                                 f"deeper than {MAX_NESTING_DEPTH} levels, the limit)")


def test_deep_brackets_in_prose_stay_prose_and_a_later_call_is_read():
    text = "[" * 100_000 + " then {" + "]" * 50_000 + '} {"name": "f", "arguments": {}}'
    result = parse_tool_calls(text, "json")
    assert calls(result) == [("f", {})] and result.errors == []
    assert result.text == text.replace('{"name": "f", "arguments": {}}', "")


# -- a call inside a broken or cut-off wrapper ----------------------------------------------------

CUT_OFF = ('{"tool_calls": [{"id": "c1", "type": "function", "function": {"name": "add", '
           '"arguments": {"a": 1, "b": 2}}')


@pytest.mark.parametrize("fmt", JSON_FORMATS)
def test_a_cut_off_openai_wrapper_is_one_error_keeping_its_id_and_name(fmt):
    result = parse_both_ways("Adding. " + CUT_OFF, fmt)
    assert result.invocations == []
    [error] = result.errors
    assert (error.id, error.name, error.index) == ("c1", "add", 0)
    assert error.message.startswith("the tool call is cut off")


@pytest.mark.parametrize("fmt", JSON_FORMATS)
def test_a_broken_openai_wrapper_is_one_error_keeping_its_id_and_name(fmt):
    result = parse_both_ways(CUT_OFF + ' oops}]} {"name": "next", "arguments": {}}', fmt)
    assert calls(result) == [("next", {})]
    [error] = result.errors
    assert (error.id, error.name, error.index) == ("c1", "add", 0)
    assert error.message.startswith("the tool call is not valid JSON: Expecting ',' delimiter")


def test_a_complete_call_before_a_cut_off_one_in_the_same_list_still_runs():
    text = ('{"tool_calls": [{"id": "c0", "function": {"name": "add", "arguments": {"a": 0}}}, '
            + CUT_OFF[len('{"tool_calls": [') :])
    result = parse_both_ways(text, "openai")
    assert [(i.id, i.name, i.arguments) for i in result.invocations] == [("c0", "add", {"a": 0})]
    [error] = result.errors
    assert (error.id, error.name, error.index) == ("c1", "add", 1)


@pytest.mark.parametrize("text", [
    '<TOOL_CALL>{"tool": {"name": "add", "id": "c1", "arguments": {"a": 1}}</TOOL_CALL>',
    '<execute>[{"id": "c1", "function": {"name": "add", "arguments": {"a": 1}}]</execute>',
])
def test_a_broken_wrapper_in_a_marked_block_is_one_error(text):
    fmt = "tool_call" if text.startswith("<TOOL_CALL>") else "execute"
    result = parse_both_ways(text, fmt)
    assert result.invocations == []
    [error] = result.errors
    assert (error.id, error.name) == ("c1", "add")


def test_a_call_shaped_value_inside_broken_data_is_never_a_call():
    text = 'Data {"result": [{"name": "rm", "arguments": {"path": "/"}}], "x": tru}'
    result = parse_both_ways(text, "json")
    assert result.invocations == []


def test_a_key_that_reads_tool_calls_only_without_its_escapes_is_not_a_call_list():
    # the key is 'tool"_calls': data, whole or broken
    for tail in ("}", ', "x": tru}'):
        text = '{"tool\\"_calls": [{"name": "a", "arguments": {}}]' + tail
        assert parse_both_ways(text, "json").invocations == []


def test_ids_of_hostile_calls_are_unique_within_a_session():
    ids = InvocationIdAllocator()
    text = json_call("json", "f", '{"x": "\ud800"}') + json_call("json", "f", '{"x": "\udfff"}')
    first = parse_tool_calls(text, "json", ids=ids).invocations
    second = parse_tool_calls(text, "json", ids=ids).invocations
    assert len({i.id for i in first + second}) == 4
    assert first[0].id[:-2] != first[1].id[:-2]  # distinct surrogates hash differently


def test_a_native_call_decoded_without_the_nesting_limit_still_builds():
    # The agent builds native calls (already decoded by the provider's wire) through the same
    # CallBuilder; values nested past the recursion limit must not make it raise.
    deep: list = []
    for _ in range(100_000):
        deep = [deep]
    builder = CallBuilder("native", sample_registry(), InvocationIdAllocator())
    invocation = builder.build("write_file", {"path": deep, "why": deep}, None)
    assert invocation.id.startswith("call_") and invocation.why is None
    assert invocation.arguments["path"] is deep  # unchanged, for validation to refuse

import pytest

from autobyteus_like import ToolRegistry, tool
from autobyteus_like.formats import parse_tool_calls
from autobyteus_like.parsers import InvocationIdAllocator
from tests.parsers.chunked_parsing import calls, parse_both_ways
from tests.sample_tools import everything, sample_registry

SHAPES = [
    '{"tool_calls": [{"id": "c9", "type": "function", "function": {"name": "f", "arguments": '
    '"{\\"a\\": 1}"}}]}',
    '{"tools": [{"name": "f", "arguments": {"a": 1}}]}',
    '{"tool": {"name": "f", "arguments": {"a": 1}}}',
    '{"tool": {"function": "f", "parameters": {"a": 1}}}',
    '{"function": {"name": "f", "arguments": {"a": 1}}}',
    '{"functionCall": {"name": "f", "args": {"a": 1}}}',
    '{"name": "f", "arguments": {"a": 1}}',
    '{"name": "f", "args": {"a": 1}}',
    '{"name": "f", "parameters": {"a": 1}}',
    '{"name": "f", "input": {"a": 1}}',
    '{"tool": "f", "args": {"a": 1}}',
    '[{"name": "f", "arguments": {"a": 1}}]',
]


@pytest.mark.parametrize("fmt", ["openai", "gemini", "json"])
@pytest.mark.parametrize("shape", SHAPES)
def test_every_json_format_reads_every_call_shape(fmt, shape):
    result = parse_both_ways(f"Calling.\n{shape}\nDone.", fmt)
    assert calls(result) == [("f", {"a": 1})]
    assert result.errors == [] and result.text == "Calling.\n\nDone."


def test_fenced_blocks_with_and_without_language_tag_keep_document_order():
    text = ('```json\n{"name": "a", "arguments": {}}\n```\nthen\n```\n'
            '[{"name": "b", "arguments": {}}, {"name": "c", "arguments": {}}]\n```\n'
            'and inline {"name": "d", "arguments": {}}')
    assert [n for n, _ in calls(parse_both_ways(text, "json"))] == ["a", "b", "c", "d"]


@pytest.mark.parametrize("text", [
    'The user {"name": "Ada", "age": 36} is here.',
    'Config: {"function": "sum", "note": "not a call"}',
    'Data {"result": {"name": "rm", "arguments": {"path": "/"}}} nested in data.',
    'A list [1, 2, 3] and code: if (x) { return y; } and {} and [].',
    'A string holding a call: {"text": "{\\"name\\": \\"rm\\", \\"arguments\\": {}}"}',
])
def test_prose_and_data_are_never_calls(text):
    result = parse_both_ways(text, "json")
    assert result.invocations == [] and result.errors == [] and result.text == text


def test_a_malformed_call_is_an_error_and_its_neighbours_survive():
    text = ('{"name": "a", "arguments": {"x": 1}}\n'
            '{"name": "b", "arguments": {"x": 1,}}\n'
            '{"name": "c", "arguments": {"x": 3}}')
    result = parse_both_ways(text, "json")
    assert calls(result) == [("a", {"x": 1}), ("c", {"x": 3})]
    [error] = result.errors
    assert error.index == 1 and error.format == "json"
    assert error.message.startswith("the tool call is not valid JSON: Expecting property name")
    assert '"name": "b"' in error.snippet


def test_a_broken_entry_in_a_call_list_keeps_the_others():
    text = ('{"tool_calls": [{"function": {"name": "a", "arguments": {}}}, '
            '{"function": {"name": "b", "arguments": {"q": tru}}}, '
            '{"function": {"name": "c", "arguments": {}}}]}')
    result = parse_both_ways(text, "openai")
    assert [n for n, _ in calls(result)] == ["a", "c"]
    assert [e.index for e in result.errors] == [1]


def test_arguments_that_are_not_json_or_not_objects_are_errors():
    text = ('{"function": {"name": "a", "arguments": "{oops"}}'
            ' {"name": "b", "arguments": [1, 2]}')
    result = parse_both_ways(text, "openai")
    assert result.invocations == []
    assert result.errors[0].message.startswith("invalid_json: the arguments of 'a' are not valid")
    assert result.errors[1].message == "the arguments of 'b' must be a JSON object, got an array"


def test_a_truncated_call_is_an_error_never_a_partial_call():
    result = parse_both_ways('ok {"name": "write", "arguments": {"content": "half', "json")
    assert result.invocations == []
    [error] = result.errors
    assert error.message.startswith("the tool call is cut off")


def test_why_and_reasoning_become_the_rationale_unless_the_tool_declares_why():
    @tool
    def audit(why: str) -> str:
        """Record a reason."""
        return why

    text = ('{"name": "write_file", "arguments": {"path": "a", "content": "", "why": "save it"}}'
            '{"tool": "write_file", "args": {"path": "b", "content": ""}, "reasoning": "backup"}'
            '{"name": "audit", "arguments": {"why": "kept"}}')
    registry = sample_registry()
    registry.add(audit)
    result = parse_both_ways(text, "json", registry)
    assert [(i.arguments, i.why) for i in result.invocations] == [
        ({"path": "a", "content": ""}, "save it"),
        ({"path": "b", "content": ""}, "backup"),
        ({"why": "kept"}, None),
    ]


def test_model_ids_are_kept_and_others_are_unique_within_a_session():
    ids = InvocationIdAllocator()
    text = '[{"id": "call_1", "name": "f", "arguments": {}}, {"name": "f", "arguments": {}}]'
    first = parse_tool_calls(text, "json", ids=ids)
    second = parse_tool_calls(text, "json", ids=ids)
    all_ids = [i.id for i in first.invocations + second.invocations]
    assert all_ids[0] == "call_1" and all_ids[2] == "call_1_2"
    assert len(set(all_ids)) == 4
    assert all_ids[1].startswith("call_") and all_ids[1].endswith("_1")


def test_values_are_kept_as_written_and_validation_converts_them():
    text = ('{"name": "everything", "arguments": {"count": "7", "enabled": "false", '
            '"tags": "[\\"x\\"]", "point": {"x": "2"}}} {"name": "mystery", "arguments": '
            '{"count": "7"}}')
    result = parse_both_ways(text, "json", ToolRegistry(sample_registry()))
    written = {"count": "7", "enabled": "false", "tags": '["x"]', "point": {"x": "2"}}
    assert calls(result) == [("everything", written), ("mystery", {"count": "7"})]
    validated = everything.validate_arguments({**written, "name": "n", "mode": "fast",
                                               "color": "red", "numbers": [], "points": [],
                                               "grid": [], "meta": {}, "ratio": 1})
    assert (validated["count"], validated["enabled"], validated["tags"], validated["point"]) == (
        7, False, ["x"], {"x": 2, "label": "origin"})


def test_call_shapes_compose_a_call_wrapped_twice_is_a_call():
    text = ('{"id": "w1", "tool": {"function": {"name": "add", "arguments": {"a": 1}}}}\n'
            '{"tool": {"functionCall": {"name": "add", "args": {"a": 2}}}, "reasoning": "why"}\n'
            '{"result": {"tool": {"function": {"name": "rm", "arguments": {}}}}}')
    result = parse_both_ways(text, "json")
    first, second = result.invocations  # a wrapped call inside other data stays data
    assert (first.id, first.name, first.arguments, first.why) == ("w1", "add", {"a": 1}, None)
    assert (second.name, second.arguments, second.why) == ("add", {"a": 2}, "why")

from tests.parsers.chunked_parsing import calls, parse_both_ways


def test_a_call_with_reasoning():
    text = ('I will look.\n<TOOL_CALL>\n{"tool": "read_file", "args": {"path": "package.json"},'
            ' "reasoning": "Need the version"}\n</TOOL_CALL>')
    result = parse_both_ways(text, "tool_call")
    assert calls(result) == [("read_file", {"path": "package.json"})]
    assert result.invocations[0].why == "Need the version"
    assert result.text == "I will look.\n"


def test_invalid_json_is_an_error_and_the_response_stays_text():
    text = '<TOOL_CALL>\n{tool: "read_file", args: {path: "test.ts"}}\n</TOOL_CALL>'
    result = parse_both_ways(text, "tool_call")
    assert result.invocations == []
    assert len(result.errors) == 1 and result.errors[0].message.startswith(
        "invalid JSON in the <TOOL_CALL> block: Expecting property name enclosed in double quotes")
    assert result.text == text


def test_several_blocks_are_all_read_in_order_and_case_is_forgiven():
    text = ('<TOOL_CALL>{"tool": "a", "args": {}}</TOOL_CALL> and '
            '<tool_call>{"tool": "b", "args": {"k": "</TOOL_CALL>"}}</tool_call>')
    assert calls(parse_both_ways(text, "tool_call")) == [("a", {}), ("b", {"k": "</TOOL_CALL>"})]

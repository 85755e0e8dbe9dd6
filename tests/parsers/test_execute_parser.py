from tests.parsers.chunked_parsing import calls, parse_both_ways


def test_a_batch_keeps_array_order():
    text = ('<think>read, then write</think>\n<execute>\n[\n'
            '  {"name": "read", "args": {"file": "a.txt"}},\n'
            '  {"name": "write", "args": {"file": "b.txt", "content": "updated"}},\n'
            '  {"name": "read", "args": {"file": "b.txt"}}\n]\n</execute>\nafter')
    result = parse_both_ways(text, "execute")
    assert calls(result) == [("read", {"file": "a.txt"}),
                             ("write", {"file": "b.txt", "content": "updated"}),
                             ("read", {"file": "b.txt"})]
    assert result.text == "\n\nafter"


def test_closing_marker_inside_a_json_string_is_content():
    text = ('<execute>[{"name": "write", "args": {"content": "Hello </execute> \\" <execute>'
            ' world"}}]</execute>')
    result = parse_both_ways(text, "execute")
    assert calls(result) == [("write", {"content": 'Hello </execute> " <execute> world'})]


def test_think_blocks_are_ignored_entirely_calls_included():
    text = ('<think>maybe <execute>[{"name": "rm", "args": {}}]</execute></think>'
            '<execute>[{"name": "ls", "args": {}}]</execute>')
    result = parse_both_ways(text, "execute")
    assert calls(result) == [("ls", {})]
    assert result.text == ""


def test_invalid_json_is_an_error_and_the_valid_calls_around_it_survive():
    text = ('<execute>[{"name": "a", "args": {}}, {"name": "b", "args": {"x": }}, '
            '{"name": "c", "args": {}}]</execute>')
    result = parse_both_ways(text, "execute")
    assert calls(result) == [("a", {}), ("c", {})]
    [error] = result.errors
    assert error.index == 1
    assert error.message.startswith("invalid JSON in the <execute> block: Expecting value")


def test_a_non_array_or_a_non_call_element_is_an_error():
    result = parse_both_ways('<execute>{"name": "a", "args": {}}</execute>'
                             '<execute>[{"name": "b", "args": {}}, 42]</execute>', "execute")
    assert calls(result) == [("b", {})]
    assert result.errors[0].message == "an <execute> block must hold a JSON array of calls"
    assert result.errors[1].message == (
        "element 1 of the call list is not a tool call (expected an object, got a number)")


def test_an_unclosed_block_is_an_error():
    result = parse_both_ways('<execute>[{"name": "a", "args": {}}]', "execute")
    assert result.invocations == []
    assert result.errors[0].message == "the <execute> block is cut off: no closing </execute>"


def test_an_unbalanced_quote_does_not_hide_the_calls_after_the_block():
    text = ('<execute>[{"name": "a", "args": {"x": "oops}]</execute> then '
            '<execute>[{"name": "b", "args": {}}]</execute>')
    result = parse_both_ways(text, "execute")
    assert calls(result) == [("b", {})]
    assert len(result.errors) == 1

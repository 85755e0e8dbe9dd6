import pytest

from tests.parsers.chunked_parsing import calls, parse_both_ways
from tests.sample_tools import everything, sample_registry


def call(name: str, body: str, attrs: str = "") -> str:
    return f'<tool name="{name}"{attrs}><arguments>{body}</arguments></tool>'


def test_arrays_nested_objects_lists_of_objects_and_lists_of_lists():
    body = ('<arg name="tags"><item>a</item><item>b</item></arg>'
            '<arg name="point"><arg name="x">1</arg></arg>'
            '<arg name="points"><item><arg name="x">2</arg></item><item><arg name="x">3</arg>'
            '</item></arg><arg name="grid"><item><item>1</item></item><item/></arg>')
    result = parse_both_ways("Here:\n" + call("t", body) + "\nthere", "xml")
    assert calls(result) == [("t", {
        "tags": ["a", "b"], "point": {"x": "1"}, "points": [{"x": "2"}, {"x": "3"}],
        "grid": [["1"], ""]})]
    assert result.text == "Here:\n\nthere"


def test_values_are_kept_as_written_and_validation_converts_them_once():
    body = ('<arg name="count"> 7 </arg><arg name="enabled">\nTrue\n</arg>'
            '<arg name="ratio">0.5</arg><arg name="name">  spaced  </arg>'
            '<arg name="grid"><item><item> 1 </item></item></arg><arg name="meta">'
            '<arg name="k">2</arg></arg><arg name="tags"/>')
    result = parse_both_ways(call("everything", body), "xml", sample_registry())
    assert calls(result) == [("everything", {
        "count": " 7 ", "enabled": "\nTrue\n", "ratio": "0.5", "name": "  spaced  ",
        "grid": [[" 1 "]], "meta": {"k": "2"}, "tags": ""})]
    rest = {"mode": "fast", "color": "red", "numbers": [], "point": {"x": 0}, "points": []}
    validated = everything.validate_arguments({**result.invocations[0].arguments, **rest})
    assert {key: validated[key] for key in ("count", "enabled", "ratio", "name", "grid", "meta",
                                            "tags")} == {
        "count": 7, "enabled": True, "ratio": 0.5, "name": "  spaced  ", "grid": [[1]],
        "meta": {"k": 2}, "tags": []}


def test_markup_inside_arguments_is_literal_text():
    content = ('<div class="x">a<b && vector<int> <toolbox> <tool name="rm"><arguments>'
               '</arguments></tool> <arg name="fake">x</arg></div>')
    text = call("write_file", f'<arg name="path">a.html</arg><arg name="content">{content}</arg>')
    result = parse_both_ways(text, "xml", sample_registry())
    assert calls(result) == [("write_file", {"path": "a.html", "content": content})]


def test_a_fake_tool_inside_an_argument_is_never_a_call_even_without_a_schema():
    inner = '<tool name="rm"><arguments><arg name="path">/</arg></arguments></tool>'
    text = call("note", f'<arg name="text">see {inner} here</arg>')
    result = parse_both_ways(text, "xml")
    assert [n for n, _ in calls(result)] == ["note"]


def test_entities_are_decoded_and_cdata_is_verbatim():
    text = call("write_file", '<arg name="path">a&amp;b &lt;c&gt; &#65;&#x42; &bogus; & x</arg>'
                '<arg name="content"><![CDATA[if a < b && c > d: "</arg>" &amp;]]></arg>')
    result = parse_both_ways(text, "xml", sample_registry())
    assert calls(result) == [("write_file", {
        "path": "a&b <c> AB &bogus; & x", "content": 'if a < b && c > d: "</arg>" &amp;'})]


def test_ids_single_quotes_and_self_closing_forms():
    text = ("<tool name='a' id='call_a'><arguments><arg name='x'/></arguments></tool>"
            '<tool name="b"/>')
    result = parse_both_ways(text, "xml")
    first = result.invocations[0]
    assert (first.name, first.id, first.arguments) == ("a", "call_a", {"x": ""})
    assert calls(result)[1] == ("b", {})


def test_an_unterminated_opening_tag_does_not_swallow_the_next_call():
    text = '<tool name="broken"\n' + call("good", '<arg name="x">1</arg>')
    result = parse_both_ways(text, "xml")
    assert calls(result) == [("good", {"x": "1"})]
    assert result.errors[0].message == "a <tool> tag is not closed with '>' before the next tag"


def test_a_call_missing_its_closing_tag_is_an_error_and_the_next_call_is_read():
    text = ('<tool name="a"><arguments><arg name="x">1</arg></arguments>\n'
            + call("b", '<arg name="y">2</arg>'))
    result = parse_both_ways(text, "xml")
    assert calls(result) == [("b", {"y": "2"})]
    [error] = result.errors
    assert (error.index, error.name) == (0, "a")
    assert "not closed with </tool> before the next <tool>" in error.message


def test_a_malformed_call_between_two_good_ones():
    text = (call("a", '<arg name="x">1</arg>')
            + call("b", '<arg name="x">1</arg><arg name="x">2</arg>')
            + call("c", '<arg name="x">3</arg>'))
    result = parse_both_ways(text, "xml")
    assert calls(result) == [("a", {"x": "1"}), ("c", {"x": "3"})]
    assert [(e.index, e.name) for e in result.errors] == [(1, "b")]
    assert "argument 'x' is given twice" in result.errors[0].message


@pytest.mark.parametrize("cut", ['<tool name="w"><arguments><arg name="c">half',
                                 '<tool name="w"><argu', '<tool name="w'])
def test_a_cut_off_call_is_an_error_never_a_partial_call(cut):
    result = parse_both_ways("text " + cut, "xml")
    assert result.invocations == []
    assert len(result.errors) == 1 and "cut off" in result.errors[0].message
    assert result.text == "text " + cut


def test_an_arg_without_a_name_and_mixed_content_are_errors():
    result = parse_both_ways(call("a", "<arg>1</arg>") + call(
        "b", '<arg name="x">text<item>1</item></arg>'), "xml")
    assert result.invocations == []
    assert "an <arg> has no name attribute" in result.errors[0].message
    assert "argument 'x' mixes text with <arg>/<item> elements" in result.errors[1].message


def test_a_forgotten_closing_arg_is_closed_by_the_end_of_the_call():
    result = parse_both_ways('<tool name="a"><arguments><arg name="x">1</arguments></tool>', "xml")
    assert calls(result) == [("a", {"x": "1"})]


def test_text_around_and_lookalike_tags_stay_prose():
    text = "Use <toolbox> or <tools> and </tool> freely."
    result = parse_both_ways(text, "xml")
    assert result.invocations == [] and result.errors == [] and result.text == text



def test_a_tag_left_open_for_pages_is_broken_the_same_way_streamed_or_whole():
    # A tag's '>' is looked for within a fixed window; the whole text used to look further and
    # cut the broken tag at the next '<', where the stream had already given up on it.
    pages = "a = b" * 200
    text = "<tool " + pages + call("a", f'<arg name="x"><item {pages}</arg>') + call("f", "")
    result = parse_both_ways(text, "xml")
    assert calls(result) == [("f", {})]
    assert [e.message for e in result.errors] == [
        "a <tool> tag is not closed with '>' before the next tag",
        "the call to 'a' is malformed: the tag '<item a = ba = ba = ba = ba = ba = ba = ' is not "
        "closed with '>'",
    ]

"""The XML parser's shortcuts (whole simple calls, runs of leaf elements, one search per tag)
read every text exactly as the tag-by-tag parser did before them.

Two kinds of evidence: generated documents whose arguments are known (the value each call must
give is built alongside its text, written with every spelling the format allows), and generated
documents full of damage and edge cases compared with the parser as it was (kept in
``tests/parsers/oracle`` only for this), whole and streamed in any chunking.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from autobyteus_like.formats import parse_tool_calls
from autobyteus_like.parsers import ParseResult
from autobyteus_like.parsers._limits import MAX_NESTING_DEPTH
from autobyteus_like.tools import ToolRegistry
from autobyteus_like.tools._invocation_ids import InvocationIdAllocator
from tests.parsers.chunked_parsing import calls, parse_both_ways, parse_in_chunks
from tests.parsers.oracle.old_xml_parser import OldXmlToolCallParser
from tests.sample_tools import sample_registry
from tests.stress_rounds import rounds

SPACE = st.sampled_from(["", "", " ", "\n  ", "\t", "\r\n", "\u00a0", " \n "])
NAMES = st.sampled_from(["x", "path", "content", "count", "tags", "grid", "meta", "point", "k",
                         "", "a b", "x" * 200, "y" * 201, "z" * 400, "w" * 505])
TEXT_PIECES = st.sampled_from([
    "a", "1", " 7 ", "&amp;", "&lt;", "&gt;", "&#65;", "&#x42;", "&#32;", "&#3", "2;", "&am",
    "p;", "&bogus;", "&", "]]", ">", "\ud800", "é", "\n", "  ", "\u00a0",
])
HOSTILE = st.sampled_from([
    "<", "<tool", '<tool name="t">', "</tool>", "<arg", '<arg name="q">', "</arg>", "<item>",
    "</item>", "<item/>", "<arguments>", "</arguments>", "<![CDATA[", "]]>", "<b>", "a<b",
    "<item " + "x" * 520 + ">", "<arg " + "n" * 505 + ">", '<tool name="" >', "/>",
    "<item>" * (MAX_NESTING_DEPTH + 1), "</item>" * 3, '<arg name="x">1</arg>',
])


@st.composite
def element(draw: st.DrawFn, depth: int) -> str:
    """An ``<arg>`` or ``<item>`` in any of its spellings, its content possibly nested."""
    kind = draw(st.sampled_from(["arg", "item"]))
    attrs = ""
    if kind == "arg":
        name = draw(NAMES)
        quote = draw(st.sampled_from(['"', '"', "'"]))
        attrs = draw(st.sampled_from([" name={q}{n}{q}", "  name = {q}{n}{q} ", " name={q}{n}{q}/",
                                      "", " id={q}{n}{q}"])).format(q=quote, n=name)
        if attrs.endswith("/"):
            return f"<arg{attrs}>"
    elif draw(st.integers(0, 9)) == 0:
        return draw(st.sampled_from(["<item/>", "<item />", "<item x='1'>a</item>"]))
    return f"<{kind}{attrs}>{draw(content(depth + 1))}</{kind}>"


@st.composite
def content(draw: st.DrawFn, depth: int = 0) -> str:
    """An element's content: text, CDATA, child elements between whitespace, or a mix."""
    shape = draw(st.sampled_from(["text", "text", "children", "children", "cdata", "mixed"]))
    if depth > 3 or shape == "text":
        return "".join(draw(st.lists(TEXT_PIECES, max_size=4)))
    if shape == "cdata":
        return "<![CDATA[" + draw(st.sampled_from(["a < b", "</arg>", "&amp;", ""])) + "]]>"
    children = draw(st.lists(element(depth), max_size=4))
    spaces = draw(st.lists(SPACE, min_size=len(children) + 1, max_size=len(children) + 1))
    if shape == "mixed":
        for _ in range(draw(st.integers(1, 2))):
            spaces[draw(st.integers(0, len(children)))] = draw(TEXT_PIECES)
    return "".join(space + child for space, child in zip(spaces, [*children, ""], strict=True))


@st.composite
def call(draw: st.DrawFn) -> str:
    """One call, usually well formed, sometimes damaged."""
    name = draw(st.sampled_from(["write_file", "everything", "t", " t ", "", "f\ud800"]))
    ident = draw(st.sampled_from(["", "", ' id="c1"', ' id=""', " id='c2'", ' id="c1" x="1"']))
    opening = draw(st.sampled_from(['<tool name="{n}"{i}>', "<tool name='{n}'{i}>",
                                    '<tool  name="{n}"{i} >', '<tool{i} name="{n}">']))
    body = draw(st.lists(element(0), max_size=4))
    spaces = draw(st.lists(SPACE, min_size=len(body) + 3, max_size=len(body) + 3))
    arguments = "".join(s + b for s, b in zip(spaces, body, strict=False))
    wrapped = draw(st.sampled_from(
        ["{s}<arguments>{a}{s}</arguments>{s}", "{a}", "{s}<arguments>{a}"]))
    text = (opening.format(n=name, i=ident)
            + wrapped.format(s=spaces[-1], a=arguments) + "</tool>")
    damage = draw(st.sampled_from(["none", "none", "none", "cut", "insert", "delete"]))
    at = draw(st.integers(0, len(text)))
    if damage == "cut":
        text = text[:at]
    elif damage == "insert":
        text = text[:at] + draw(HOSTILE) + text[at:]
    elif damage == "delete":
        text = text[:at] + text[at + draw(st.integers(1, 8)):]
    return text


@st.composite
def documents(draw: st.DrawFn) -> str:
    """Prose (some of it markup) around calls."""
    prose = st.lists(st.one_of(TEXT_PIECES, HOSTILE, st.text(max_size=5)), max_size=4).map("".join)
    pieces = [draw(prose)]
    for _ in range(draw(st.integers(1, 4))):
        pieces += [draw(call()), draw(prose)]
    return "".join(pieces)


def old_parse(text: str, tools: ToolRegistry | None) -> ParseResult:
    parser = OldXmlToolCallParser(tools, InvocationIdAllocator())
    return ParseResult.from_events(parser.feed(text) + parser.finish())


def assert_same(new: ParseResult, old: ParseResult) -> None:
    assert new.invocations == old.invocations
    assert new.errors == old.errors
    assert new.text == old.text


@pytest.mark.slow  # documents each read whole and in chunks by both parsers (400 when deep)
@settings(max_examples=rounds(100, 400), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(text=documents(), with_tools=st.booleans(),
       sizes=st.lists(st.integers(1, 40), min_size=1, max_size=5))
def test_every_document_reads_as_the_parser_before_the_shortcuts_read_it(text, with_tools, sizes):
    tools = sample_registry() if with_tools else None
    old = old_parse(text, tools)
    assert_same(parse_tool_calls(text, "xml", tools), old)
    assert_same(parse_in_chunks(text, "xml", sizes, tools), old)


# -- documents whose value is known ----------------------------------------------------------

VALUES = st.recursive(
    st.text(alphabet=st.sampled_from('ab 1<>&"\'\n]é'), max_size=6),
    lambda inner: st.one_of(
        st.lists(inner, min_size=1, max_size=4),
        st.dictionaries(st.sampled_from(["a", "b", "c d", ""]), inner, min_size=1, max_size=3),
    ),
    max_leaves=12,
)


@st.composite
def written(draw: st.DrawFn, value: Any) -> str:
    """``value`` as element content, in a spelling drawn from all the format allows."""
    space = draw(SPACE.filter(lambda s: s.strip() == ""))
    if isinstance(value, str):
        if "]]>" not in value and draw(st.booleans()):
            return f"<![CDATA[{value}]]>"
        escaped = value.replace("&", "&amp;").replace("<", "&lt;")
        return escaped.replace(">", "&gt;") if draw(st.booleans()) else escaped
    if isinstance(value, list):
        return "".join(f"{space}<item>{draw(written(v))}</item>" for v in value) + space
    return "".join(f'{space}<arg name="{k}">{draw(written(v))}</arg>' for k, v in value.items())


@pytest.mark.slow  # generated documents, each read whole and in chunks (200 when deep)
@settings(max_examples=rounds(60, 200), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), count=st.integers(1, 4))
def test_generated_calls_give_the_arguments_they_were_written_from(data, count):
    expected = [data.draw(st.dictionaries(st.sampled_from(["x", "y", "z"]), VALUES, max_size=3))
                for _ in range(count)]
    text = "Some prose <b>with markup</b>\n".join(
        f'<tool name="t"><arguments>{data.draw(written(arguments))}</arguments></tool>'
        for arguments in expected
    )
    result = parse_both_ways(text, "xml")
    assert result.errors == []
    assert calls(result) == [("t", arguments) for arguments in expected]


# -- the shortcuts' edges, one by one --------------------------------------------------------

def one_call(body: str, name: str = "t") -> str:
    return f'<tool name="{name}"><arguments>{body}</arguments></tool>'


@pytest.mark.parametrize("text, expected", [
    (one_call('<arg name="a">1</arg>\n<arg name="b">x &amp; y</arg>'), {"a": "1", "b": "x & y"}),
    (one_call(""), {}),
    (one_call('<arg name="xs">' + "".join(f"\n <item>{n}</item>" for n in range(50)) + "\n</arg>"),
     {"xs": [str(n) for n in range(50)]}),
    (one_call('<arg name="ps"><item><arg name="x">1</arg><arg name="y">2</arg></item></arg>'),
     {"ps": [{"x": "1", "y": "2"}]}),
])
def test_the_common_shapes_read_as_ever(text, expected):
    assert calls(parse_both_ways(text, "xml")) == [("t", expected)]


@pytest.mark.parametrize("body, problem", [
    ('<arg name="a">1</arg><arg name="a">2</arg>', "argument 'a' is given twice"),
    ('<arg name="xs"><item>1</item><arg name="k">2</arg></arg>',
     "argument 'xs' mixes <arg> and <item> elements"),
    # The whitespace between two leaves is text of the list: it keeps "&#3" and "2;" apart,
    # where together they would be "&#32;", a space, and no mixed text at all.
    ('<arg name="xs">&#3<item>1</item>\n<item>2</item>2;</arg>',
     "argument 'xs' mixes text with <arg>/<item>"),
    ("<item>1</item>", "an <item> must be inside an <arg>"),
])
def test_problems_inside_a_run_of_leaves_are_reported_as_ever(body, problem):
    result = parse_both_ways(one_call(body), "xml")
    [error] = result.errors
    assert problem in error.message and result.invocations == []


@pytest.mark.parametrize("leaf, levels", [
    ("<item>v</item>", 1), ('<arg name="k">v</arg>', 1), ('<item><arg name="k">v</arg></item>', 2),
    ("<item>\n <item>v</item>\n</item>", 2), ('<item> <arg name="k">v</arg> </item>', 2),
])
def test_a_leaf_at_the_nesting_limit_is_refused_and_one_within_it_is_read(leaf, levels):
    def nested(depth: int) -> str:  # ``depth`` elements, the leaf's the innermost
        return one_call('<arg name="a">' + "<item>" * (depth - 1 - levels) + leaf
                        + "</item>" * (depth - 1 - levels) + "</arg>")
    within, beyond = nested(MAX_NESTING_DEPTH), nested(MAX_NESTING_DEPTH + 1)
    assert parse_both_ways(within, "xml").errors == []
    [error] = parse_both_ways(beyond, "xml").errors
    assert f"nested deeper than {MAX_NESTING_DEPTH} levels" in error.message


def test_an_attribute_too_long_for_a_tag_window_is_a_broken_tag_as_ever():
    # 505 characters of name make the <arg ...> tag longer than the 512-character window.
    text = one_call(f'<arg name="{"n" * 505}">1</arg>') + one_call('<arg name="b">2</arg>')
    result = parse_both_ways(text, "xml")
    assert calls(result) == [("t", {"b": "2"})]
    assert "is not closed with '>'" in result.errors[0].message


def test_a_whole_simple_call_with_a_blank_name_is_the_error_it_always_was():
    result = parse_both_ways('<tool name=" "><arguments></arguments></tool>', "xml")
    assert result.errors[0].message == "a <tool> tag has no name attribute"


@pytest.mark.parametrize("content", [
    '\n  <arg name="x">1</arg>\n  <arg name="y">2</arg>\n',  # looks like an object
    "<item>1</item>\n<item>2</item>",  # looks like a list
    '<item>\n  <arg name="x">1</arg>\n</item>',  # looks like a list of objects
])
def test_a_string_argument_holding_what_looks_like_structure_is_its_text(content):
    text = one_call(f'<arg name="path">p</arg><arg name="content">{content}</arg>', "write_file")
    result = parse_both_ways(text, "xml", sample_registry())
    assert calls(result) == [("write_file", {"path": "p", "content": content})]


def test_a_string_argument_of_a_known_tool_keeps_markup_and_leaves_alike():
    content = '<item>1</item><arg name="x">2</arg>'
    text = one_call(f'<arg name="path">p</arg><arg name="content">{content}</arg>', "write_file")
    result = parse_both_ways(text, "xml", sample_registry())
    assert calls(result) == [("write_file", {"path": "p", "content": content})]

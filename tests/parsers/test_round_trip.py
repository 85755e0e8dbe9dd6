import pytest

from autobyteus_like.formats import TEXT_FORMATS, formatter_for
from autobyteus_like.formatters import example_arguments
from tests.parsers.chunked_parsing import parse_both_ways
from tests.sample_tools import everything, sample_registry, write_file


@pytest.mark.parametrize("fmt", list(TEXT_FORMATS))
@pytest.mark.parametrize("tool", [everything, write_file], ids=lambda t: t.name)
def test_formatter_example_parses_back_into_the_invocation_it_shows(fmt, tool):
    arguments = example_arguments(tool)
    text = "Let me do that.\n" + formatter_for(fmt).format_call(tool.name, arguments) + "\nOK."
    result = parse_both_ways(text, fmt, sample_registry())
    assert result.errors == []
    [call] = result.invocations
    assert call.name == tool.name
    # Values arrive as written (XML writes every scalar as text); validation converts them
    # once, into exactly the arguments the example shows.
    assert tool.validate_arguments(call.arguments) == tool.validate_arguments(arguments)
    if fmt != "xml":
        assert call.arguments == arguments
    assert result.text == "Let me do that.\n\nOK."


@pytest.mark.parametrize("fmt", list(TEXT_FORMATS))
def test_awkward_values_survive_the_round_trip(fmt):
    arguments = {"path": "src/a&b <x>.html", "content": 'He said "hi" </tool> </execute> ]]> \\n'}
    text = formatter_for(fmt).format_call("write_file", arguments, call_id="call_7")
    result = parse_both_ways(text, fmt, sample_registry())
    assert result.errors == []
    assert [i.arguments for i in result.invocations] == [arguments]


@pytest.mark.parametrize("fmt", list(TEXT_FORMATS))
def test_control_characters_round_trip(fmt):
    arguments = {"path": "bin\x00\x01\x1f", "content": "tab\tnl\n\ufffe\ue000\ue0011\ue001"}
    text = formatter_for(fmt).format_call("write_file", arguments)
    result = parse_both_ways(text, fmt, sample_registry())
    assert [i.arguments for i in result.invocations] == [arguments]

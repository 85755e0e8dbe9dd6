"""manifest: compact: one line per taught tool, and a demonstration whose reply is a call the
format's own parser reads back."""

import pytest

from autobyteus_like.formats import TEXT_FORMATS, formatter_for, parse_tool_calls
from autobyteus_like.formatters import build_manifest, demonstration
from autobyteus_like.formatters._tool_choice import RuledFormatter
from autobyteus_like.tools._call_rules import CallRules, ToolChoice
from tests.sample_tools import sample_registry


@pytest.mark.parametrize("fmt", [f.value for f in TEXT_FORMATS])
def test_compact_manifest_is_one_line_a_tool_and_its_demonstration_parses(fmt):
    registry = sample_registry()
    formatter = formatter_for(fmt)
    compact = build_manifest(registry, formatter, compact=True)
    assert len(compact) < len(build_manifest(registry, formatter)) / 3
    assert compact.count("\n") == len(registry.names())  # a line a tool, one on calling
    assert "write_file(path: string, content: string)" in compact
    assert "properties" not in compact
    asked, answered = demonstration(registry, formatter)
    [call] = parse_tool_calls(answered, fmt, registry).invocations
    assert asked == f"Use the tool {call.name}."
    assert call.name == registry.names()[0]


def test_a_named_tool_choice_teaches_and_demonstrates_only_that_tool():
    registry = sample_registry()
    other = next(name for name in registry.names() if name != "write_file")
    formatter = RuledFormatter(formatter_for("json"), CallRules(ToolChoice("tool", other), None))
    compact = build_manifest(registry, formatter, compact=True)
    assert compact.startswith(f"{other}(") and "write_file" not in compact
    assert demonstration(registry, formatter)[0] == f"Use the tool {other}."


def test_no_taught_tool_means_no_demonstration():
    formatter = RuledFormatter(formatter_for("xml"), CallRules(ToolChoice("none"), None))
    assert demonstration(sample_registry(), formatter) is None
    assert demonstration([], formatter_for("xml")) is None
    assert build_manifest([], formatter_for("xml"), compact=True) == ""

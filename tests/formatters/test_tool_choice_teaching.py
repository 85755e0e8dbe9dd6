"""RuledFormatter: the manifest teaches the member's call rules."""

from __future__ import annotations

from autobyteus_like.formats import formatter_for
from autobyteus_like.formatters._manifest import build_manifest
from autobyteus_like.formatters._tool_choice import RuledFormatter
from autobyteus_like.tools._call_rules import CallRules, ToolChoice
from tests.sample_tools import everything, write_file


def manifest(rules: CallRules) -> str:
    return build_manifest([write_file, everything], RuledFormatter(formatter_for("xml"), rules))


def test_each_rule_is_taught_and_a_named_tool_is_the_only_one_shown():
    assert "A tool call is required" in manifest(CallRules(ToolChoice("required")))
    named = manifest(CallRules(ToolChoice("tool", "write_file"), parallel=False))
    assert "### write_file" in named and "### everything" not in named
    assert "A call of the tool write_file is required" in named
    assert "at most one tool call per reply" in named
    assert manifest(CallRules(ToolChoice("none"))) == ""
    assert manifest(CallRules()) == build_manifest([write_file, everything],
                                                   formatter_for("xml"))

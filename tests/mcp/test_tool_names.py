"""Local names for a server's tools: legal for every layer, unique, stable."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from autobyteus_like.mcp._tool_names import local_tool_name
from autobyteus_like.tools._definition import _NAME


def test_a_legal_name_is_kept_under_the_server_namespace():
    assert local_tool_name("fs", "read_file") == "fs.read_file"
    assert local_tool_name("fs", "files.read-2") == "fs.files.read-2"


def test_an_illegal_name_is_cleaned_and_marked_with_a_hash_of_the_original():
    cleaned = local_tool_name("fs", "read file")
    assert cleaned.startswith("fs.read_file_") and len(cleaned) == len("fs.read_file_") + 8
    assert cleaned != local_tool_name("fs", "read_file")  # a legal twin keeps its own name
    assert cleaned == local_tool_name("fs", "read file")  # the same on every listing


def test_long_and_foreign_names_fit_128_characters():
    for name in ("x" * 300, "ünïcödé/tool", "", "🙂" * 200):
        local = local_tool_name("a_server", name)
        assert _NAME.match(local) and len(local) <= 128, local


@given(st.text(max_size=300), st.text(max_size=300))
def test_any_two_different_names_get_different_legal_local_names(first, second):
    a, b = local_tool_name("srv", first), local_tool_name("srv", second)
    assert _NAME.match(a) and _NAME.match(b)
    assert (a == b) == (first == second)

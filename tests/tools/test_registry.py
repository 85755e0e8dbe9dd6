import pytest

from autobyteus_like import ToolRegistry, tool
from autobyteus_like.tools import DuplicateToolError, ToolDeclarationError, UnknownToolError
from tests.sample_tools import everything, write_file


def test_registration_order_lookup_and_membership():
    registry = ToolRegistry([write_file])
    registry.add(everything)
    assert registry.names() == ["write_file", "everything"]
    assert [t.name for t in registry] == ["write_file", "everything"]
    assert registry.get("everything") is everything
    assert "write_file" in registry and "nope" not in registry
    assert registry.find("nope") is None
    assert len(registry) == 2


def test_duplicates_and_unknown_names_are_clear_errors():
    registry = ToolRegistry([write_file])
    with pytest.raises(DuplicateToolError, match="'write_file' is already registered"):
        registry.add(write_file)
    with pytest.raises(UnknownToolError, match="unknown tool 'nope'; available tools: write_file"):
        registry.get("nope")


def test_registries_are_independent_objects():
    first, second = ToolRegistry(), ToolRegistry()
    first.add(write_file)
    assert len(second) == 0


def test_plain_functions_must_be_decorated():
    def undecorated(x: int) -> int:
        return x

    with pytest.raises(ToolDeclarationError, match="decorate it with @tool"):
        ToolRegistry([undecorated])  # type: ignore[list-item]
    assert ToolRegistry([tool(undecorated)]).names() == ["undecorated"]

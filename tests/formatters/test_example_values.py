"""Every manifest shows the schema's constraints, and every example call it teaches satisfies
them: the LLM is never shown a call the tool would refuse."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Annotated

import jsonschema
import pytest
from pydantic import Field

from autobyteus_like import tool
from autobyteus_like.formats import TEXT_FORMATS, formatter_for
from autobyteus_like.formatters import build_manifest
from autobyteus_like.formatters._example_values import example_arguments
from autobyteus_like.tools import builtin_tools
from tests.sample_tools import sample_registry

ROOT = Path(__file__).parents[2]


@tool
def book(days: Annotated[int, Field(ge=10, le=30)],
         email: Annotated[str, Field(pattern=r"^[a-z]+@[a-z]+\.[a-z]{2,}$")],
         code: Annotated[str, Field(max_length=3)],
         ratio: Annotated[float, Field(gt=0, lt=1)] = 0.5,
         tags: Annotated[list[str], Field(min_length=3)] | None = None) -> str:
    """Book a stay."""
    return f"{days} {email} {code}"


def example_tools():
    spec = importlib.util.spec_from_file_location("example_tools_for_examples",
                                                  ROOT / "examples" / "example_tools.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return list(module.make_tools())


EVERY_TOOL = [book, *builtin_tools(), *example_tools(), *sample_registry()]


@pytest.mark.parametrize("definition", EVERY_TOOL, ids=lambda t: t.name)
def test_every_example_satisfies_its_tool_s_schema(definition):
    example = example_arguments(definition)
    jsonschema.validate(example, definition.inline_schema())
    definition.validate_arguments(example)  # the tool's own validation takes it


def test_the_example_of_a_constrained_tool_keeps_within_its_bounds():
    example = example_arguments(book)
    assert 10 <= example["days"] <= 30 and len(example["code"]) <= 3
    assert 0 < example["ratio"] < 1 and len(example["tags"]) >= 3


@pytest.mark.parametrize("fmt", [f.value for f in TEXT_FORMATS])
def test_every_format_s_manifest_shows_the_constraints(fmt):
    manifest = build_manifest([book], formatter_for(fmt))
    for shown in ("minimum", "maximum", "30", "maxLength", r"[a-z]{2,}"):
        assert shown in manifest, (fmt, shown)

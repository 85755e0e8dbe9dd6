"""A tool set that covers every supported argument kind, shared by formatter and parser tests."""

from __future__ import annotations

from enum import Enum
from typing import Literal

from pydantic import BaseModel, Field

from autobyteus_like import ToolRegistry, tool


class Color(Enum):
    RED = "red"
    BLUE = "blue"


class Point(BaseModel):
    x: int = Field(description="Horizontal position.")
    label: str = "origin"


@tool
def write_file(path: str, content: str) -> str:
    """Write text to a file.

    Args:
        path: Where to write, relative to the workspace.
        content: The full text of the file.
    """
    return f"wrote {len(content)} chars to {path}"


@tool(requires_approval=True, timeout_s=5, category="demo")
def everything(
    name: str,
    count: int,
    ratio: float,
    enabled: bool,
    mode: Literal["fast", "slow"],
    color: Color,
    tags: list[str],
    numbers: list[int],
    point: Point,
    points: list[Point],
    grid: list[list[int]],
    meta: dict[str, int],
    note: str | None = None,
    limit: int = 10,
) -> dict[str, object]:
    """Exercise every argument kind.

    Args:
        name: A plain string.
        count: A whole number.
        ratio: A fraction.
        enabled: A switch.
        mode: One of two speeds.
        color: An enum.
        tags: A list of strings.
        numbers: A list of integers.
        point: A nested object.
        points: A list of nested objects.
        grid: A list of lists.
        meta: A map of names to counts.
        note: An optional string.
        limit: A number with a default.
    """
    return {"name": name, "count": count}


def sample_registry() -> ToolRegistry:
    """A fresh registry with the sample tools (never shared between tests)."""
    return ToolRegistry([write_file, everything])

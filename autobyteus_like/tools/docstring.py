"""Reads a Google-style docstring into a description and per-argument descriptions."""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass, field

__all__ = ["ParsedDocstring", "parse_docstring"]

_SECTION = re.compile(
    r"^(Args|Arguments|Parameters|Params|Returns|Return|Yields|Raises|Examples?|Notes?|Warnings?"
    r"|See Also|Attributes|Todo):\s*$",
    re.IGNORECASE,
)
_ARG_SECTIONS = {"args", "arguments", "parameters", "params"}
_ARG_LINE = re.compile(r"^\*{0,2}(\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")


@dataclass(frozen=True)
class ParsedDocstring:
    """The summary text and the ``Args:`` entries of a docstring."""

    description: str = ""
    arguments: dict[str, str] = field(default_factory=dict)


def parse_docstring(doc: str | None) -> ParsedDocstring:
    """Split a docstring into its description and its ``Args:`` descriptions (by name)."""
    if not doc:
        return ParsedDocstring()
    lines = inspect.cleandoc(doc).splitlines()
    description: list[str] = []
    arguments: dict[str, list[str]] = {}
    section: str | None = None
    current: str | None = None
    entry_indent = 0
    for line in lines:
        header = _SECTION.match(line.strip()) if not line.startswith((" ", "\t")) else None
        if header:
            section = header.group(1).lower()
            current = None
            continue
        if section is None:
            description.append(line)
            continue
        if section not in _ARG_SECTIONS or not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        match = _ARG_LINE.match(line.strip())
        if match and (current is None or indent <= entry_indent):
            current, entry_indent = match.group(1), indent
            arguments[current] = [match.group(2).strip()]
        elif current is not None:
            arguments[current].append(line.strip())
    text = "\n".join(description).strip()
    return ParsedDocstring(
        description=text,
        arguments={name: " ".join(p for p in parts if p) for name, parts in arguments.items()},
    )

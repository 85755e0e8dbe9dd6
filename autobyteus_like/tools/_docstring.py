"""Reads a docstring (Google, numpy or Sphinx style) into a description and per-argument
descriptions, with griffe, the parser pydantic-ai and mkdocstrings use."""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass, field
from typing import Any

__all__ = ["ParsedDocstring", "parse_docstring"]

_SECTIONS = re.compile(
    r"^\s*(?:[A-Z][A-Za-z ]{1,30}:\s*$|[-=]{3,}\s*$"
    r"|:(?:param|parameter|arg|key|returns?|raises?)\b)",
    re.MULTILINE,
)
"""A Google or numpy section heading, a numpy underline, or a Sphinx field: griffe's work."""
_QUIET = {"warnings": False}
_OPTIONS: dict[str, Any] = {
    "default": "google",
    "per_style_options": {"google": _QUIET, "numpy": _QUIET, "sphinx": _QUIET},
}


@dataclass(frozen=True)
class ParsedDocstring:
    """The summary text and the argument entries of a docstring."""

    description: str = ""
    arguments: dict[str, str] = field(default_factory=dict)


def parse_docstring(doc: str | None) -> ParsedDocstring:
    """Split a docstring into its description (the text before any section) and its argument
    descriptions by name (``*args``/``**kwargs`` stars removed, lines joined)."""
    if not doc or not doc.strip():
        return ParsedDocstring()
    text = inspect.cleandoc(doc)
    if not _SECTIONS.search(text):  # prose only: no parser (and no griffe import) needed
        return ParsedDocstring(description=text)
    from griffe import Docstring, DocstringSectionKind  # loaded for the first such docstring

    sections = Docstring(text).parse("auto", **_OPTIONS)
    description: list[str] = []
    arguments: dict[str, str] = {}
    for section in sections:
        if section.kind is DocstringSectionKind.text and not arguments:
            description.append(str(section.value))
        elif section.kind in (DocstringSectionKind.parameters,
                              DocstringSectionKind.other_parameters):
            for parameter in section.value:
                text = " ".join(part.strip() for part in parameter.description.splitlines())
                arguments[parameter.name.lstrip("*")] = text.strip()
    return ParsedDocstring(description="\n\n".join(description).strip(), arguments=arguments)

"""Teaching tools to an LLM: one formatter per format (manifest, example, rules, result
rendering), and the functions that use a formatter given to them (``build_manifest(...,
compact=True)`` and ``demonstration`` teach small models: one line per tool and one shown
call). Formats by name are ``autobyteus_like.formats``, the layer above."""

from autobyteus_like.formatters._base import ToolFormatter
from autobyteus_like.formatters._example_values import example_arguments
from autobyteus_like.formatters._manifest import (
    build_manifest,
    demonstration,
    render_results,
    render_system_prompt,
)

__all__ = [
    "ToolFormatter",
    "build_manifest",
    "demonstration",
    "example_arguments",
    "render_results",
    "render_system_prompt",
]

"""Teaching tools to an LLM: manifests per format, system prompts, results written back."""

from autobyteus_like.formatters.base import ToolFormatter
from autobyteus_like.formatters.example_values import example_arguments
from autobyteus_like.formatters.manifest import (
    build_manifest,
    formatter_for,
    render_results,
    render_system_prompt,
)
from autobyteus_like.tool_call_format import format_for_provider

__all__ = [
    "ToolFormatter",
    "build_manifest",
    "example_arguments",
    "format_for_provider",
    "formatter_for",
    "render_results",
    "render_system_prompt",
]

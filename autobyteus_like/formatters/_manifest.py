"""Manifests, system prompts and result rendering: the public face of the formatters."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from loguru import logger

from autobyteus_like.formatters._base import ToolFormatter
from autobyteus_like.formatters._example_values import example_arguments
from autobyteus_like.tools._definition import ToolDefinition
from autobyteus_like.tools._invocation import ToolInvocation, ToolResult
from autobyteus_like.tools._json_schema import schema_type
from autobyteus_like.tools._registry import ToolLike, ToolRegistry

__all__ = ["build_manifest", "demonstration", "render_results", "render_system_prompt"]

_PLACEHOLDER = re.compile(r"\{\{\s*tools\s*\}\}")


def _definitions(tools: ToolRegistry | Iterable[ToolLike]) -> list[ToolDefinition]:
    return list(ToolRegistry.of(tools))


def build_manifest(tools: ToolRegistry | Iterable[ToolLike], formatter: ToolFormatter,
                   *, compact: bool = False) -> str:
    """The usage guidelines, then each tool's schema and a usage example, as ``formatter``
    teaches them (a format's formatter: ``autobyteus_like.formats.formatter_for(name)``).

    ``compact`` (for small models, which copy a long schema instead of calling): one line per
    tool naming its arguments and one sentence on how to call; the example is a
    ``demonstration`` exchange instead. Returns an empty string when there are no tools.
    """
    definitions = [tool for tool in _definitions(tools) if formatter.teaches(tool)]
    if not definitions or not formatter.teaches_in_prompt:
        return ""
    if compact:
        return "\n".join([*(_one_line(tool) for tool in definitions),
                          "To call a tool, reply with only the call, written exactly as in "
                          "the example."])
    fence = formatter.example_fence()
    sections = [formatter.guidelines(), "Available tools:"]
    for tool in definitions:
        example = formatter.format_call(tool.name, example_arguments(tool))
        sections.append(
            f"### {tool.name}\n```{fence}\n{formatter.describe_tool(tool)}\n```\n"
            f"Example:\n```{fence}\n{example}\n```"
        )
    return "\n\n".join(sections)


def _one_line(tool: ToolDefinition) -> str:
    schema = tool.shared_inline_schema
    required = set(schema.get("required", []))
    arguments = ", ".join(f"{name}{'' if name in required else '?'}: {schema_type(prop)}"
                          for name, prop in schema.get("properties", {}).items())
    summary = tool.description.strip().splitlines()[0] if tool.description.strip() else ""
    return f"{tool.name}({arguments}): {summary}".rstrip(": ")


def demonstration(tools: ToolRegistry | Iterable[ToolLike],
                  formatter: ToolFormatter) -> tuple[str, str] | None:
    """A user's request and the assistant's reply that calls the first taught tool with
    example arguments in ``formatter``'s format: the compact manifest's example, put before
    the conversation as one exchange (a small model follows a shown reply, not a rule).
    None when no tool is taught."""
    definitions = [tool for tool in _definitions(tools) if formatter.teaches(tool)]
    if not definitions or not formatter.teaches_in_prompt:
        return None
    first = definitions[0]
    return (f"Use the tool {first.name}.",
            formatter.format_call(first.name, example_arguments(first)))


def render_system_prompt(
    template: str, tools: ToolRegistry | Iterable[ToolLike], formatter: ToolFormatter,
    *, compact: bool = False,
) -> str:
    """Put the manifest at ``{{tools}}``; every other brace in the prompt is left untouched.

    Without a placeholder the manifest is appended under a short heading.
    """
    manifest = build_manifest(tools, formatter, compact=compact)
    if _PLACEHOLDER.search(template):
        return _PLACEHOLDER.sub(lambda _: manifest, template)
    if not manifest:
        return template
    return f"{template.rstrip()}\n\n## Tools\n\n{manifest}" if template.strip() else manifest


def render_results(
    invocations: Sequence[ToolInvocation], results: Iterable[ToolResult],
    formatter: ToolFormatter,
) -> str:
    """A turn's results as ``formatter`` writes them, ordered exactly as ``invocations``,
    whatever their order.

    A missing result is an error (``ValueError`` naming the invocation); a result for no listed
    invocation, or a second result for one, is ignored with a log line.
    """
    by_id: dict[str, ToolResult] = {}
    wanted = {invocation.id for invocation in invocations}
    for result in results:
        if result.invocation_id not in wanted:
            logger.warning("ignoring stray result for unknown invocation {}", result.invocation_id)
        elif result.invocation_id in by_id:
            logger.warning("ignoring duplicate result for invocation {}", result.invocation_id)
        else:
            by_id[result.invocation_id] = result
    missing = [inv.id for inv in invocations if inv.id not in by_id]
    if missing:
        raise ValueError(f"no result for invocation(s): {', '.join(missing)}")
    return formatter.render_results([(inv, by_id[inv.id]) for inv in invocations])

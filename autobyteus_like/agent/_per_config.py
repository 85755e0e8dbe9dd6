"""What every agent built from one config shares: its format and its rendered system prompt
(kept with the config: ``_config_entries``, as the handler registry and the answer's spec are).

A config is frozen, so what follows from it alone is worked out once, by the first agent that
needs it, and kept while the config lives. A prompt depends on the tools too, so it is kept
per formatter and tool set (the same objects, compared by identity), a few per config.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from autobyteus_like.agent._config_entries import entry
from autobyteus_like.agent._member_format import member_format
from autobyteus_like.formats import FormatRegistry, ToolFormat
from autobyteus_like.formatters._manifest import demonstration, render_system_prompt
from autobyteus_like.output._spec import answer_by_tool

if TYPE_CHECKING:
    from autobyteus_like.agent._config import AgentConfig
    from autobyteus_like.formatters._base import ToolFormatter
    from autobyteus_like.tools._registry import ToolRegistry

__all__ = ["Prompt", "config_format", "config_prompt"]

_WHY_RULE = ("\n\nEvery tool call must include a `why` argument: one sentence saying what the "
             "call is for. Calls without it are rejected.")
_PROMPTS_KEPT = 8  # tool sets per config (a tool source whose tools change makes new ones)

Prompt = tuple[str, "tuple[str, str] | None"]


def config_format(config: AgentConfig, formats: FormatRegistry | None) -> ToolFormat:
    """The agent's format under its call rules (shared when the built-in formats are used)."""
    if formats is not None:
        return member_format(formats.get(config.resolved_format()), config.call_rules())
    kept = entry(config)
    found: ToolFormat | None = kept.get("format")
    if found is None:
        found = kept["format"] = member_format(FormatRegistry().get(config.resolved_format()),
                                                config.call_rules())
    return found


def config_prompt(config: AgentConfig, tools: ToolRegistry, formatter: ToolFormatter) -> Prompt:
    """The system prompt teaching ``tools`` in ``formatter``'s way, and the compact
    manifest's demonstration (None under the full manifest)."""
    definitions = tuple(tools)
    key = (id(formatter), tuple(id(definition) for definition in definitions))
    prompts: dict[Any, Any] = entry(config).setdefault("prompts", {})
    found = prompts.get(key)
    if found is not None and found[0] is formatter and all(
            mine is theirs for mine, theirs in zip(found[1], definitions, strict=True)):
        return found[2]  # type: ignore[no-any-return]
    compact = config.manifest == "compact"
    prompt = render_system_prompt(config.system_prompt, tools, formatter, compact=compact)
    if config.output_mode == "tool" and config.output_spec() is not None:
        prompt = answer_by_tool(prompt, formatter.done_rule)  # finish with final_result only
    made: Prompt = (prompt + (_WHY_RULE if config.require_why and tools else ""),
                    demonstration(tools, formatter) if compact else None)
    if len(prompts) >= _PROMPTS_KEPT:
        prompts.clear()
    prompts[key] = (formatter, definitions, made)  # the objects kept: their ids stay theirs
    return made

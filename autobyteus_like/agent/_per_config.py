"""What every agent built from one config shares: its format, its rendered system prompt, and
whatever else its builders keep with it (``shared``: the handler registry).

A config is frozen, so what follows from it alone is worked out once, by the first agent that
needs it, and kept while the config lives (a weak reference: a dropped config takes its entry
with it). A prompt depends on the tools too, so it is kept per formatter and tool set (the same
objects, compared by identity), a few per config.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from autobyteus_like.agent._member_format import member_format
from autobyteus_like.formats import FormatRegistry, ToolFormat
from autobyteus_like.formatters._manifest import demonstration, render_system_prompt
from autobyteus_like.output._spec import answer_by_tool

if TYPE_CHECKING:
    from autobyteus_like.agent._config import AgentConfig
    from autobyteus_like.formatters._base import ToolFormatter
    from autobyteus_like.tools._registry import ToolRegistry

__all__ = ["Prompt", "config_format", "config_prompt", "shared"]

_WHY_RULE = ("\n\nEvery tool call must include a `why` argument: one sentence saying what the "
             "call is for. Calls without it are rejected.")
_PROMPTS_KEPT = 8  # tool sets per config (a tool source whose tools change makes new ones)

Prompt = tuple[str, "tuple[str, str] | None"]
T = TypeVar("T")
_derived: dict[int, tuple[weakref.ref[Any], dict[Any, Any]]] = {}


def _entry(config: AgentConfig) -> dict[Any, Any]:
    key = id(config)
    found = _derived.get(key)
    if found is not None and found[0]() is config:
        return found[1]

    def forget(ref: weakref.ref[Any], key: int = key) -> None:
        if _derived.get(key, (None,))[0] is ref:  # not a later config at the same address
            _derived.pop(key, None)

    entry: dict[Any, Any] = {}
    _derived[key] = (weakref.ref(config, forget), entry)
    return entry


def shared(config: AgentConfig, key: str, make: Callable[[AgentConfig], T]) -> T:
    """``make(config)``, made once per config and kept with it under ``key``."""
    entry = _entry(config)
    try:
        return entry[key]  # type: ignore[no-any-return]
    except KeyError:
        found = entry[key] = make(config)
        return found


def config_format(config: AgentConfig, formats: FormatRegistry | None) -> ToolFormat:
    """The agent's format under its call rules (shared when the built-in formats are used)."""
    if formats is not None:
        return member_format(formats.get(config.resolved_format()), config.call_rules())
    entry = _entry(config)
    found: ToolFormat | None = entry.get("format")
    if found is None:
        found = entry["format"] = member_format(FormatRegistry().get(config.resolved_format()),
                                                config.call_rules())
    return found


def config_prompt(config: AgentConfig, tools: ToolRegistry, formatter: ToolFormatter) -> Prompt:
    """The system prompt teaching ``tools`` in ``formatter``'s way, and the compact
    manifest's demonstration (None under the full manifest)."""
    definitions = tuple(tools)
    key = (id(formatter), tuple(id(definition) for definition in definitions))
    prompts: dict[Any, Any] = _entry(config).setdefault("prompts", {})
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

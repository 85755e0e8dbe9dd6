"""A member's LLM as its agent uses it: the member's call rules on every request
(``ruled_llm``), and with ``tool_format: auto`` the format adapting to what the server and
model can do.

Both live behind the LLM seam, so the turn machine never branches on them: it speaks native
tool calling, and ``FormatAdaptingLLM`` (``format_adapting``) translates when it has switched to
a text format.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Protocol

from autobyteus_like.agent._ruled_llm import RuledLLM
from autobyteus_like.llm._base import LLM
from autobyteus_like.llm._providers import LLMProvider
from autobyteus_like.llm._scripted import ScriptedLLM
from autobyteus_like.llm._spec import LLMSpec
from autobyteus_like.tools._call_rules import CallRules

if TYPE_CHECKING:
    from autobyteus_like.agent._format_memory import FormatMemory
    from autobyteus_like.store import SessionStore
    from autobyteus_like.store._model_formats import ModelFormats, ModelKey

__all__ = ["AUTO_FORMAT", "format_choice", "format_lines", "keep_formats_in", "member_llm",
           "native_by_default"]

AUTO_FORMAT = "auto"
"""``tool_format: auto``: native where it works, else a text format."""
NATIVE_FORMAT = "native"


def member_llm(llm: LLM, rules: CallRules, *, adapt: bool) -> LLM:
    """``llm`` as a member with these rules uses it (itself when nothing needs adding)."""
    if adapt:
        from autobyteus_like.agent._format_adapting import FormatAdaptingLLM

        return FormatAdaptingLLM(llm, rules)
    return RuledLLM(llm, rules) if rules.any else llm


def keep_formats_in(llm: LLM, store: SessionStore | None) -> None:
    """Keep what ``tool_format: auto`` learns of ``llm``'s model in ``store``'s
    ``model_formats`` table (without a store: in the cache file's). Nothing for other LLMs."""
    from autobyteus_like.agent._format_adapting import FormatAdaptingLLM

    if store is not None and isinstance(llm, FormatAdaptingLLM):
        from autobyteus_like.store._model_formats import ModelFormats

        llm.formats = ModelFormats.in_store(store)


_TEXT_ONLY = frozenset({LLMProvider.SCRIPTED, LLMProvider.OTHER})
"""Providers with no native function calling of their own: a scripted LLM keeps its declared
format, an LLM of one's own the seed mapping's text format."""


def native_by_default(llm: LLM | LLMSpec) -> bool:
    """Whether ``llm``'s provider calls tools natively, so that a member without a
    ``tool_format`` gets ``auto`` (native where the server takes it)."""
    if isinstance(llm, LLMSpec):
        return llm.provider != "scripted"
    return llm.provider not in _TEXT_ONLY and not isinstance(llm, ScriptedLLM)


def format_choice(tool_format: str | None, use_xml: bool, llm: LLM | LLMSpec,
                  formats: ModelFormats | None = None) -> tuple[str, str]:
    """The format a member starts with and why, by the one precedence: an explicit
    ``tool_format`` (or ``use_xml_tool_format``) > the stored eval verdict > what ``auto``
    learned on that server > native function calling where the provider has it > the
    provider's text format (``format_for_provider``)."""
    from autobyteus_like.formats import format_for_provider

    if tool_format is not None and tool_format != AUTO_FORMAT:
        return tool_format, "tool_format in the config"
    if tool_format is None and use_xml:
        return "xml", "use_xml_tool_format in the config"
    provider = llm.imitates.value if isinstance(llm, LLMSpec) and llm.provider == "scripted" \
        else str(getattr(llm.provider, "value", llm.provider))
    if tool_format is None and not native_by_default(llm):
        return (format_for_provider(provider).value,
                f"the {provider} provider's text format: it calls no tools natively")
    how = "tool_format auto" if tool_format == AUTO_FORMAT else \
        "auto, the default where the provider calls tools natively"
    key = _key(llm)
    start = None if key is None else _memory(formats, key).start()
    if start is not None:
        return start[0], f"{how}: {start[1]}"
    known = "" if key is None else f"; nothing is known of {key} yet"
    return NATIVE_FORMAT, (f"{how}: native function calling, a text format (xml, then json) "
                           f"if the server fails it{known}")


def _key(llm: LLM | LLMSpec) -> ModelKey | None:
    from autobyteus_like.agent._format_memory import model_key
    from autobyteus_like.store._model_formats import ModelKey

    if not isinstance(llm, LLMSpec):
        return model_key(llm)
    if llm.provider == "scripted" or llm.fallback or not llm.model:
        return None
    try:
        return model_key(llm.build())  # the server's URL as the LLM resolves it
    except Exception:  # no key or SDK here: the URL as written
        return ModelKey(llm.provider, (llm.base_url or "").rstrip("/"), llm.model)


def _memory(formats: ModelFormats | None, key: ModelKey) -> FormatMemory:
    from autobyteus_like.agent._format_memory import FormatMemory
    from autobyteus_like.store._model_formats import ModelFormats

    return FormatMemory(formats or ModelFormats.cached(), key)


class MemberFormatSettings(Protocol):
    """What ``format_lines`` reads of a member's config (``AgentConfig`` has it)."""

    @property
    def name(self) -> str: ...

    @property
    def tool_format(self) -> str | None: ...

    @property
    def use_xml_tool_format(self) -> bool: ...

    @property
    def llm(self) -> LLM | LLMSpec: ...


def format_lines(members: Iterable[MemberFormatSettings], store: SessionStore | None = None
                 ) -> list[str]:
    """One line per member: the format it starts with, and why (``format_choice``; what is
    known is read from ``store``'s table, else the cache file's)."""
    from autobyteus_like.store._model_formats import ModelFormats

    formats = ModelFormats.in_store(store) if store is not None else ModelFormats.cached()
    lines = []
    for member in members:
        chosen, why = format_choice(member.tool_format, member.use_xml_tool_format,
                                    member.llm, formats)
        lines.append(f"{member.name} uses {chosen} ({why})")
    return lines

"""A member's LLM as its agent uses it: the member's call rules on every request
(``ruled_llm``), and with ``tool_format: auto`` the format adapting to what the server and
model can do.

Both live behind the LLM seam, so the turn machine never branches on them: it speaks native
tool calling, and ``FormatAdaptingLLM`` (``format_adapting``) translates when it has switched to
a text format.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from autobyteus_like.agent.ruled_llm import RuledLLM
from autobyteus_like.llm.base import LLM
from autobyteus_like.llm.spec import LLMSpec
from autobyteus_like.tools.call_rules import CallRules

if TYPE_CHECKING:
    from autobyteus_like.store import SessionStore
    from autobyteus_like.store._model_formats import ModelFormats

__all__ = ["AUTO_FORMAT", "auto_start", "keep_formats_in", "member_llm"]

AUTO_FORMAT = "auto"
"""``tool_format: auto``: native where it works, else a text format."""


def member_llm(llm: LLM, rules: CallRules, *, adapt: bool) -> LLM:
    """``llm`` as a member with these rules uses it (itself when nothing needs adding)."""
    if adapt:
        from autobyteus_like.agent.format_adapting import FormatAdaptingLLM

        return FormatAdaptingLLM(llm, rules)
    return RuledLLM(llm, rules) if rules.any else llm


def keep_formats_in(llm: LLM, store: SessionStore | None) -> None:
    """Keep what ``tool_format: auto`` learns of ``llm``'s model in ``store``'s
    ``model_formats`` table (without a store: in the cache file's). Nothing for other LLMs."""
    from autobyteus_like.agent.format_adapting import FormatAdaptingLLM

    if store is not None and isinstance(llm, FormatAdaptingLLM):
        from autobyteus_like.store._model_formats import ModelFormats

        llm.formats = ModelFormats.in_store(store)


def auto_start(llm: LLM | LLMSpec, formats: ModelFormats | None = None) -> str:
    """How a member with ``tool_format: auto`` starts, as ``validate`` says it: ``auto``, and
    the format the table holds for its model and why (``auto: starts with xml, ...``)."""
    from autobyteus_like.agent._format_memory import FormatMemory, model_key
    from autobyteus_like.store._model_formats import ModelFormats, ModelKey

    key: ModelKey | None
    if isinstance(llm, LLMSpec):
        if llm.provider == "scripted" or llm.fallback or not llm.model:
            return AUTO_FORMAT
        try:
            key = model_key(llm.build())  # the server's URL as the LLM resolves it
        except Exception:  # no key or SDK here: the URL as written
            key = ModelKey(llm.provider, (llm.base_url or "").rstrip("/"), llm.model)
    else:
        key = model_key(llm)
    if key is None:
        return AUTO_FORMAT
    start = FormatMemory(formats or ModelFormats.cached(), key).start()
    if start is None:
        return f"{AUTO_FORMAT}: starts native, nothing is known of {key} yet"
    return f"{AUTO_FORMAT}: starts with {start[0]}, {start[1]}"

"""What ``tool_format: auto`` reads and writes of the ``model_formats`` table for one model:
where to start (the eval's verdict, else what ``auto`` learned on that server), each format it
moved to, and a learned format that then failed (dropped, so the next process starts afresh).

The table is an aid, never a reason to fail a turn: a store that cannot be read or written is
logged and the model is treated as unknown.
"""

from __future__ import annotations

import logging

from autobyteus_like.errors import StoreError
from autobyteus_like.llm._base import LLM
from autobyteus_like.llm._fallback import FallbackLLM
from autobyteus_like.llm._providers import LLMProvider
from autobyteus_like.store._model_formats import ModelFormats, ModelKey

__all__ = ["FormatMemory", "model_key"]

_log = logging.getLogger(__name__)


def model_key(llm: LLM) -> ModelKey | None:
    """The table's key for ``llm``: its provider, server and model; None for a scripted LLM
    (it keeps its declared format) and for a chain of fallback models (no one model)."""
    if llm.provider is LLMProvider.SCRIPTED or isinstance(llm, FallbackLLM):
        return None
    model = getattr(llm, "model", None)
    if not isinstance(model, str) or not model:
        return None
    base_url = getattr(llm, "base_url", None)
    return ModelKey(llm.provider.value, str(base_url or "").rstrip("/"), model)


class FormatMemory:
    """The table's entry for one model, as ``auto`` uses it."""

    def __init__(self, table: ModelFormats, key: ModelKey) -> None:
        self.table = table
        self.key = key

    def start(self) -> tuple[str, str] | None:
        """The format to start from and why: the eval's verdict, else what ``auto`` learned
        (None: nothing is known; start native)."""
        try:
            known = self.table.known(self.key)
        except StoreError as exc:
            _log.warning("cannot read the known formats in %s: %s", self.table.where, exc)
            return None
        if known is None:
            return None
        if known.verdict is not None:
            return known.verdict, f"the eval-formats verdict for {self.key}"
        if known.learned is not None:
            return known.learned, (f"learned earlier on this server: {known.learned_reason}"
                                   if known.learned_reason else "learned earlier on this server")
        return None

    def learned(self, tool_format: str, reason: str) -> None:
        """``auto`` moved to ``tool_format`` for ``reason``."""
        try:
            self.table.learn(self.key, tool_format, reason)
        except StoreError as exc:
            _log.warning("cannot remember the format of %s in %s: %s", self.key,
                         self.table.where, exc)

    def failed(self, tool_format: str) -> None:
        """The learned ``tool_format`` failed: drop it."""
        try:
            self.table.forget_learned(self.key, tool_format)
        except StoreError as exc:
            _log.warning("cannot drop the format of %s in %s: %s", self.key,
                         self.table.where, exc)

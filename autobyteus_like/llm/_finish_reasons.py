"""Why a response ended, in one vocabulary for every provider.

Each provider names it differently (OpenAI ``length``, Anthropic ``max_tokens``, Gemini
``MAX_TOKENS``); the agent only needs to know the common cases, above all a response cut off
by the output limit, which otherwise looks like a malformed call. Values without a common
meaning are kept as the provider gave them.
"""

from __future__ import annotations

__all__ = ["CONTENT_FILTER", "LENGTH", "STOP", "TOOL_CALLS", "anthropic", "gemini", "openai"]

STOP = "stop"
"""The model finished on its own (or at a stop sequence)."""
LENGTH = "length"
"""The output was cut off at the max_tokens limit."""
TOOL_CALLS = "tool_calls"
"""The model stopped to have its tool calls run."""
CONTENT_FILTER = "content_filter"
"""The provider withheld or stopped the output (safety, recitation, refusal)."""

_OPENAI = {"function_call": TOOL_CALLS}
_ANTHROPIC = {"end_turn": STOP, "stop_sequence": STOP, "max_tokens": LENGTH,
              "tool_use": TOOL_CALLS, "refusal": CONTENT_FILTER}
_GEMINI = {"STOP": STOP, "MAX_TOKENS": LENGTH, "SAFETY": CONTENT_FILTER,
           "RECITATION": CONTENT_FILTER, "BLOCKLIST": CONTENT_FILTER,
           "PROHIBITED_CONTENT": CONTENT_FILTER, "SPII": CONTENT_FILTER,
           "IMAGE_SAFETY": CONTENT_FILTER, "IMAGE_PROHIBITED_CONTENT": CONTENT_FILTER}


def openai(reason: str | None) -> str | None:
    """Chat Completions already uses this vocabulary (``function_call`` is the old name)."""
    return None if reason is None else _OPENAI.get(reason, reason)


def anthropic(reason: str | None) -> str | None:
    """A Messages API ``stop_reason``."""
    return None if reason is None else _ANTHROPIC.get(reason, reason)


def gemini(reason: str | None, made_calls: bool) -> str | None:
    """A Gemini ``finishReason``. Gemini says ``STOP`` after function calls too; a response
    that made calls reports ``tool_calls``, as the other providers do."""
    if reason is None:
        return None
    normal = _GEMINI.get(reason, reason)
    return TOOL_CALLS if normal == STOP and made_calls else normal

"""Counting the tokens of a conversation, offline.

OpenAI-family models (``gpt-*``, ``o1``/``o3``/``o4``..., ``chatgpt-*``) are counted exactly with
``bpe-openai`` (the ``tokens`` extra), which ships its vocabularies (tiktoken downloads them at
first use, which fails offline). Every other model, or any model without that package, is
estimated: one token per 4 characters, rounded up (OpenAI's rule of thumb for English text;
other vocabularies differ by a few tens of percent, code and non-Latin text count more). Each
message adds 4 tokens for its framing, as OpenAI's chat format does.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from functools import lru_cache

from autobyteus_like.errors import ConfigError
from autobyteus_like.history._messages import (
    AssistantMessage,
    HistoryMessage,
    ToolResultsMessage,
)

__all__ = ["MESSAGE_OVERHEAD", "TokenCounter", "estimate_tokens", "is_openai_model",
           "message_text", "openai_counter", "token_counter"]

MESSAGE_OVERHEAD = 4
"""Tokens each message costs beyond its text (role and separators)."""

TokenCounter = Callable[[str], int]
"""The tokens of a text."""

_OPENAI_MODEL = re.compile(r"^(?:gpt-|o\d|chatgpt-|text-embedding-|davinci|babbage)")


def estimate_tokens(text: str) -> int:
    """About one token per 4 characters (rounded up)."""
    return math.ceil(len(text) / 4)


@lru_cache(maxsize=8)
def _encoding(model: str | None) -> TokenCounter:
    try:
        import bpe_openai
    except ImportError:
        raise ConfigError("token_budget", [
            "counting OpenAI tokens needs bpe-openai: pip install 'autobyteus-like[tokens]'"
        ]) from None
    try:
        name = bpe_openai.encoding_name_for_model(model) if model else "o200k_base"
    except Exception:  # a model it does not list: the current family's vocabulary
        name = "o200k_base"
    encoding = bpe_openai.get_encoding(name)
    return lambda text: len(encoding.encode_ordinary(text))


def openai_counter(model: str | None = None) -> TokenCounter:
    """Exact counts for an OpenAI model (``ConfigError`` naming the extra if it is missing)."""
    return _encoding(model)


def is_openai_model(provider: str | None, model: str | None) -> bool:
    """Whether the model counts its tokens with an OpenAI vocabulary."""
    return provider == "openai" or bool(model and _OPENAI_MODEL.match(model))


def token_counter(provider: str | None, model: str | None) -> TokenCounter:
    """The best counter here: exact for an OpenAI-family model when bpe-openai is installed,
    else the estimate."""
    if is_openai_model(provider, model):
        try:
            return _encoding(model)
        except ConfigError:
            return estimate_tokens
    return estimate_tokens


def message_text(message: HistoryMessage) -> str:
    """The text a message stands for when sent (native calls and results as their JSON)."""
    if isinstance(message, AssistantMessage):
        if message.tool_calls and message.format == "native":
            calls = json.dumps([[c.name, c.arguments] for c in message.tool_calls],
                               ensure_ascii=False, default=str)
            return message.content + calls
        return message.content
    if isinstance(message, ToolResultsMessage):
        if message.content:
            return message.content
        return json.dumps([r.content if r.error is None else r.error.message
                           for r in message.results], ensure_ascii=False, default=str)
    return message.content

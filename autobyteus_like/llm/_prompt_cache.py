"""Prompt caching: where a request tells the provider what it may cache.

An agent's request grows by appending: the tools, the system prompt (the manifest in it) and
every earlier message are sent again, byte for byte, each turn. Anthropic caches a prefix only
up to a ``cache_control`` breakpoint, so a request marks three: the last tool (caching the
tools), the system prompt, and the last message (everything so far, which the next request
begins with). Reads of the cache cost a tenth of fresh input and come back in the usage as
``cache_read_input_tokens``. OpenAI caches prefixes by itself; ``prompt_cache_key`` keeps one
agent's requests on the same cache. Gemini caches implicitly.
"""

from __future__ import annotations

import uuid
from typing import Any

from autobyteus_like.llm._providers import LLMProvider

__all__ = ["EPHEMERAL", "cache_key_option", "mark_anthropic_breakpoints"]

EPHEMERAL = {"type": "ephemeral"}


def mark_anthropic_breakpoints(body: dict[str, Any]) -> dict[str, Any]:
    """``body`` (a Messages API request) with breakpoints on its last tool, its system prompt
    and its last message. Text content is written as blocks in every message, not only the
    marked one, so that a message reads the same in this request and the next."""
    tools = body.get("tools")
    if tools:
        body["tools"] = [*tools[:-1], {**tools[-1], "cache_control": EPHEMERAL}]
    system = body.get("system")
    if isinstance(system, str) and system:
        body["system"] = [{"type": "text", "text": system, "cache_control": EPHEMERAL}]
    messages = [_as_blocks(message) for message in body.get("messages") or ()]
    if messages:
        body["messages"] = [*messages[:-1], _marked(messages[-1])]
    return body


def _as_blocks(message: dict[str, Any]) -> dict[str, Any]:
    content = message.get("content")
    if isinstance(content, str) and content:  # an empty text block is not allowed
        return {**message, "content": [{"type": "text", "text": content}]}
    return message


def _marked(message: dict[str, Any]) -> dict[str, Any]:
    content = message.get("content")
    if not isinstance(content, list) or not content:
        return message
    return {**message, "content": [*content[:-1], {**content[-1], "cache_control": EPHEMERAL}]}


def cache_key_option(provider: LLMProvider, base_url: str | None, on: bool, key: str | None
                     ) -> dict[str, str]:
    """``{"prompt_cache_key": ...}``: ``key`` when given; else, for OpenAI's own API only
    (a compatible server may reject the field), one made for this LLM object, so that one
    agent's requests share a cache."""
    if not on:
        return {}
    if key is not None:
        return {"prompt_cache_key": key}
    own_api = base_url is None or "api.openai.com" in base_url
    if provider is not LLMProvider.OPENAI or not own_api:
        return {}
    return {"prompt_cache_key": f"autobyteus-{uuid.uuid4().hex}"}

"""A server's prompts and resources, as plain values: what ``MCPToolset.prompts``,
``.prompt``, ``.resources`` and ``.read_resource`` give back.

A prompt's messages keep their role and become text (an embedded resource's text is kept; an
image or audio block becomes a placeholder naming its type). A resource read becomes its text
(a binary part, a placeholder with its MIME type and size), cut at the server's
``max_result_chars`` with a note, as tool results are.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass, field
from typing import Any, Literal

from autobyteus_like.tools._result_values import capped

__all__ = ["MCPPrompt", "MCPPromptInfo", "MCPResource", "prompt_info", "prompt_of",
           "resource_info", "resource_text"]

_MAX_DESCRIPTION_CHARS = 2_000


def _short(text: Any) -> str:
    cleaned = str(text or "").strip()
    if len(cleaned) > _MAX_DESCRIPTION_CHARS:
        return cleaned[:_MAX_DESCRIPTION_CHARS] + " [cut]"
    return cleaned


@dataclass(frozen=True)
class MCPPromptInfo:
    """One prompt a server lists: its name, description and arguments (name -> required)."""

    name: str
    description: str = ""
    arguments: dict[str, bool] = field(default_factory=dict)


@dataclass(frozen=True)
class MCPPrompt:
    """A prompt as the server filled it in: ``(role, text)`` messages."""

    name: str
    messages: tuple[tuple[Literal["user", "assistant"], str], ...]
    description: str = ""

    @property
    def text(self) -> str:
        """Every message's text, one after another (what a system prompt or a user message
        made from the prompt reads)."""
        return "\n\n".join(text for _, text in self.messages)


@dataclass(frozen=True)
class MCPResource:
    """One resource a server lists."""

    uri: str
    name: str = ""
    mime_type: str | None = None
    description: str = ""


def prompt_info(prompt: Any) -> MCPPromptInfo:
    """The SDK's ``Prompt`` as an ``MCPPromptInfo``."""
    arguments = {str(a.name): bool(a.required) for a in (prompt.arguments or [])}
    return MCPPromptInfo(str(prompt.name), _short(prompt.description or prompt.title),
                         arguments)


def _block_text(block: Any) -> str:
    kind = getattr(block, "type", "")
    if kind == "text":
        return str(block.text)
    if kind == "resource":
        contents = block.resource
        text = getattr(contents, "text", None)
        if text is not None:
            return str(text)
        return _binary(contents)
    if kind == "resource_link":
        return f"[resource {block.uri}]"
    mime = getattr(block, "mime_type", None) or "unknown type"
    return f"[{kind} {mime}: not shown]"


def prompt_of(name: str, result: Any) -> MCPPrompt:
    """The SDK's ``GetPromptResult`` as an ``MCPPrompt``."""
    messages: tuple[tuple[Literal["user", "assistant"], str], ...] = tuple(
        ("assistant" if m.role == "assistant" else "user", _block_text(m.content))
        for m in result.messages)
    return MCPPrompt(name, messages, _short(result.description))


def resource_info(resource: Any) -> MCPResource:
    """The SDK's ``Resource`` as an ``MCPResource``."""
    return MCPResource(str(resource.uri), str(resource.name or ""), resource.mime_type,
                       _short(resource.description))


def _binary(contents: Any) -> str:
    blob = getattr(contents, "blob", "") or ""
    try:
        size = len(base64.b64decode(blob, validate=False))
    except (binascii.Error, ValueError):
        size = len(blob)
    mime = getattr(contents, "mime_type", None) or "unknown type"
    return f"[binary {mime}, {size} bytes: not shown]"


def resource_text(result: Any, max_chars: int) -> str:
    """The SDK's ``ReadResourceResult`` as text, cut at ``max_chars`` with a note."""
    parts = [str(c.text) if getattr(c, "text", None) is not None else _binary(c)
             for c in result.contents]
    text = "\n\n".join(parts)
    cut = capped(text, max_chars)
    return cut if isinstance(cut, str) else text[:max_chars]

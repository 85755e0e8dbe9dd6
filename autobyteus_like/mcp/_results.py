"""What an MCP ``CallToolResult`` becomes for the LLM: a JSON value, or a ``ToolFailure``.

* text blocks become strings; structured content becomes the JSON object it is (the text copy
  servers add "for backwards compatibility" is dropped rather than shown twice);
* images become ``ImageContent`` (each provider's wire sends them to the model; the result's
  text names them); an image that cannot be sent (a format no provider takes, bad base64, too
  large) and audio become a placeholder naming the MIME type, size and why;
* embedded resources become ``{"type": "resource", "uri", "mime_type", "text"}`` (a binary one,
  a placeholder for its bytes); resource links keep their URI, name and MIME type;
* a result longer than ``max_chars`` (as text, or as JSON) is cut, with a note saying so;
* ``isError`` results raise ``ToolFailure`` carrying the server's text.
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

from pydantic import ValidationError

from autobyteus_like.errors import ToolFailure
from autobyteus_like.tools._image_content import ImageContent
from autobyteus_like.tools._invocation import ErrorCode
from autobyteus_like.tools._result_values import capped

__all__ = ["result_content"]

_MAX_ERROR_CHARS = 2_000


def _decoded_size(data: Any) -> int:
    """Bytes in a base64 payload (an unreadable one is counted as its text length)."""
    if not isinstance(data, str):
        return 0
    try:
        return len(base64.b64decode(data, validate=False))
    except (binascii.Error, ValueError):
        return len(data)


def _media(kind: str, block: Any) -> str | ImageContent:
    mime = getattr(block, "mime_type", None) or "unknown type"
    data = getattr(block, "data", None)
    why = "audio is not sent to models"
    if kind == "image":
        try:
            return ImageContent(data if isinstance(data, str) else b"", mime)
        except ValidationError as exc:
            why = str(exc.errors()[0]["msg"]).removeprefix("Value error, ")
    size = _decoded_size(data)
    return f"[{kind} {mime}, {size} bytes: not shown ({why})]"


def _resource(block: Any) -> dict[str, Any]:
    contents = getattr(block, "resource", None)
    shown: dict[str, Any] = {"type": "resource", "uri": str(getattr(contents, "uri", ""))}
    mime = getattr(contents, "mime_type", None)
    if mime:
        shown["mime_type"] = mime
    text = getattr(contents, "text", None)
    if isinstance(text, str):
        shown["text"] = text
    else:
        size = _decoded_size(getattr(contents, "blob", None))
        shown["text"] = f"[binary resource {mime or 'of unknown type'}, {size} bytes: not shown]"
    return shown


def _link(block: Any) -> dict[str, Any]:
    shown: dict[str, Any] = {"type": "resource_link", "uri": str(getattr(block, "uri", ""))}
    for field in ("name", "title", "description", "mime_type"):
        value = getattr(block, field, None)
        if value:
            shown[field] = value
    return shown


def _block(block: Any) -> Any:
    kind = getattr(block, "type", None)
    if kind == "text":
        return str(getattr(block, "text", ""))
    if kind in ("image", "audio"):
        return _media(kind, block)
    if kind == "resource":
        return _resource(block)
    if kind == "resource_link":
        return _link(block)
    return f"[content of type {kind!r}: not shown]"


def _error_text(blocks: list[Any]) -> str:
    text = " ".join(b if isinstance(b, str) else json.dumps(b) for b in blocks).strip()
    if len(text) > _MAX_ERROR_CHARS:
        text = text[:_MAX_ERROR_CHARS] + f"... [{len(text)} characters in all]"
    return text or "the server gave no reason"


def result_content(result: Any, tool_name: str, max_chars: int) -> Any:
    """The JSON value the LLM is shown for a ``CallToolResult`` (raises ``ToolFailure`` for
    an ``isError`` result)."""
    raw = list(getattr(result, "content", None) or [])
    every = [_block(block) for block in raw]
    images = [block for block in every if isinstance(block, ImageContent)]
    blocks = [block for block in every if not isinstance(block, ImageContent)]
    if getattr(result, "is_error", False):
        raise ToolFailure(ErrorCode.TOOL_ERROR, f"{tool_name} failed: {_error_text(blocks)}",
                          suggestion="read the error, then fix the arguments or try another "
                                     "approach")
    structured = getattr(result, "structured_content", None)
    content: Any
    if structured is not None:
        if all(getattr(block, "type", None) == "text" for block in raw):
            content = structured
        else:
            content = {"structured_content": structured,
                       "content": [b for b, block in zip(every, raw, strict=True)
                                   if getattr(block, "type", None) != "text"
                                   and not isinstance(b, ImageContent)]}
    elif not blocks:
        content = None
    elif len(blocks) == 1:
        content = blocks[0]
    else:
        content = blocks
    if not images:
        return capped(content, max_chars)
    # the images after the rest; the agent names them in the result text it sends
    shown = [] if content is None else [capped(content, max_chars)]
    return images[0] if not shown and len(images) == 1 else [*shown, *images]

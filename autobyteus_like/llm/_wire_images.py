"""Images on each provider's wire: the part each API takes for an image, and the check that a
model without vision is never sent one (a clear error instead of a confusing 400).

Where images come from: a user message's ``images`` (the user's, or, in a text format, those
of the tool results the message renders) and each native result's ``images``.
"""

from __future__ import annotations

from typing import Any

from autobyteus_like.errors import LLMError
from autobyteus_like.llm._messages import LLMRequest
from autobyteus_like.tools._image_content import ImageContent

__all__ = ["anthropic_image", "chat_image", "check_vision", "gemini_image", "request_images",
           "responses_image"]


def chat_image(image: ImageContent) -> dict[str, Any]:
    """OpenAI Chat Completions: an ``image_url`` content part with a data URL."""
    return {"type": "image_url", "image_url": {"url": image.data_url}}


def responses_image(image: ImageContent) -> dict[str, Any]:
    """OpenAI Responses: an ``input_image`` part (also inside ``function_call_output``)."""
    return {"type": "input_image", "image_url": image.data_url}


def anthropic_image(image: ImageContent) -> dict[str, Any]:
    """Anthropic: an ``image`` block with a base64 source (also inside ``tool_result``)."""
    return {"type": "image", "source": {"type": "base64", "media_type": image.media_type,
                                        "data": image.base64}}


def gemini_image(image: ImageContent) -> dict[str, Any]:
    """Gemini: an ``inline_data`` part (the SDK takes the bytes and sends base64)."""
    return {"inline_data": {"mime_type": image.media_type, "data": image.data}}


def request_images(request: LLMRequest) -> int:
    """How many images a request carries."""
    return sum(len(message.images) + sum(len(r.images) for r in message.tool_results)
               for message in request.messages)


def check_vision(request: LLMRequest, vision: bool, provider: str, model: str) -> None:
    """Raise ``LLMError`` before sending images to a model that takes none."""
    if vision:
        return
    count = request_images(request)
    if count:
        raise LLMError(
            f"{provider} {model}: this model takes no images, and the conversation holds "
            f"{count} (from the user or a tool's results); use a model with vision, or pass "
            "vision=True if this one has it", provider=provider, model=model)

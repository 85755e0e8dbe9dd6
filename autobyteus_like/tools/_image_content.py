"""ImageContent: an image a tool returns or a user sends, for models that see images.

A tool returns ``ImageContent(data, media_type)`` (alone, or among other values in a list); the
result's text names it (``[image 1: image/png, 48213 bytes]``) and each provider's wire sends
the image itself where that provider takes it. Stored and carried as base64 in JSON.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, field_serializer, field_validator, model_validator

__all__ = ["MAX_IMAGE_BYTES", "ImageContent", "MediaType"]

MAX_IMAGE_BYTES = 5 * 1024 * 1024
"""The largest image sent: Anthropic's limit per image (OpenAI and Gemini take more)."""

MediaType = Literal["image/png", "image/jpeg", "image/gif", "image/webp"]
"""The formats every provider here takes."""

_MAGIC: dict[str, tuple[bytes, ...]] = {
    "image/png": (b"\x89PNG\r\n\x1a\n",),
    "image/jpeg": (b"\xff\xd8\xff",),
    "image/gif": (b"GIF87a", b"GIF89a"),
    "image/webp": (b"RIFF",),
}


class ImageContent(BaseModel):
    """An image's bytes and media type. ``data`` may be given as bytes or as base64 text."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    data: bytes
    media_type: MediaType

    def __init__(self, data: bytes | str, media_type: str, **extra: Any) -> None:
        super().__init__(data=data, media_type=media_type, **extra)

    @field_validator("data", mode="before")
    @classmethod
    def _bytes(cls, value: Any) -> Any:
        if isinstance(value, str):  # base64, as stored and as MCP sends it
            try:
                return base64.b64decode(value, validate=True)
            except (binascii.Error, ValueError):
                raise ValueError("image data given as text must be base64") from None
        return value

    @model_validator(mode="after")
    def _fits(self) -> ImageContent:
        if not self.data:
            raise ValueError("image data is empty")
        if len(self.data) > MAX_IMAGE_BYTES:
            raise ValueError(f"the image is {len(self.data)} bytes; at most {MAX_IMAGE_BYTES} "
                             "bytes are sent (scale it down or crop it)")
        if not self.data.startswith(_MAGIC[self.media_type]):
            raise ValueError(f"the data is not a {self.media_type} image (its first bytes "
                             f"say otherwise)")
        return self

    @field_serializer("data", when_used="json")
    def _base64(self, data: bytes) -> str:
        return base64.b64encode(data).decode("ascii")

    @property
    def base64(self) -> str:
        """The data as base64 text."""
        return base64.b64encode(self.data).decode("ascii")

    @property
    def data_url(self) -> str:
        """``data:<media type>;base64,...`` (what OpenAI's APIs take)."""
        return f"data:{self.media_type};base64,{self.base64}"

    def label(self, number: int) -> str:
        """How result text names it: ``[image 1: image/png, 48213 bytes]``."""
        return f"[image {number}: {self.media_type}, {len(self.data)} bytes]"

"""A user's message as the agent takes it: text, or a list of text and images."""

from __future__ import annotations

from collections.abc import Sequence

from autobyteus_like.tools._image_content import ImageContent

__all__ = ["message_parts"]


def message_parts(message: object) -> tuple[str, tuple[ImageContent, ...]]:
    """The text (pieces joined by blank lines) and the images of ``message``; a
    ``TypeError`` naming what is neither."""
    if isinstance(message, str):
        return message, ()
    if not isinstance(message, Sequence) or isinstance(message, bytes | bytearray):
        raise TypeError(f"a message is text, or a list of text and ImageContent; got "
                        f"{type(message).__name__}")
    texts: list[str] = []
    images: list[ImageContent] = []
    for index, part in enumerate(message):
        if isinstance(part, str):
            texts.append(part)
        elif isinstance(part, ImageContent):
            images.append(part)
        else:
            raise TypeError(f"message part {index} is a {type(part).__name__}; a part is text "
                            "or ImageContent")
    return "\n\n".join(texts), tuple(images)

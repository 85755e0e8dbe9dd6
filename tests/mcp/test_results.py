"""What the LLM is shown for each kind of MCP result (the SDK's own result types)."""

from __future__ import annotations

import base64

import pytest
from mcp.types import (
    BlobResourceContents,
    CallToolResult,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextContent,
    TextResourceContents,
)

from autobyteus_like.errors import ToolFailure
from autobyteus_like.mcp._results import result_content
from autobyteus_like.tools._image_content import ImageContent as Image
from autobyteus_like.tools._invocation import ErrorCode


def shown(*content, structured=None, error=False, limit=100_000):
    result = CallToolResult(content=list(content), structured_content=structured,
                            is_error=error)
    return result_content(result, "srv.tool", limit)


def text(value: str) -> TextContent:
    return TextContent(type="text", text=value)


def test_text_alone_is_a_string_and_several_blocks_a_list():
    assert shown(text("hello")) == "hello"
    assert shown(text("a"), text("b")) == ["a", "b"]
    assert shown() is None


def test_structured_content_wins_over_its_own_text_copy():
    assert shown(text('{"t": 21}'), structured={"t": 21}) == {"t": 21}


def test_images_reach_the_model_and_those_that_cannot_are_a_placeholder_saying_why():
    png = b"\x89PNG\r\n\x1a\n" + b"\0" * 92
    data = base64.b64encode(png).decode()
    image = shown(ImageContent(type="image", data=data, mime_type="image/png"))
    assert image == Image(png, "image/png")
    assert shown(text("a chart:"), ImageContent(type="image", data=data,
                                                mime_type="image/png")) == [
        "a chart:", Image(png, "image/png")]
    not_png = base64.b64encode(b"\x89PNG" + b"\0" * 96).decode()
    placeholder = shown(ImageContent(type="image", data=not_png, mime_type="image/png"))
    assert placeholder == ("[image image/png, 100 bytes: not shown (the data is not a "
                           "image/png image (its first bytes say otherwise))]")
    tiff = shown(ImageContent(type="image", data=data, mime_type="image/tiff"))
    assert tiff.startswith("[image image/tiff, 100 bytes: not shown (Input should be ")


def test_resources_keep_their_text_and_links_their_address():
    embedded = EmbeddedResource(type="resource", resource=TextResourceContents(
        uri="file:///a.txt", mime_type="text/plain", text="the notes"))
    blob = EmbeddedResource(type="resource", resource=BlobResourceContents(
        uri="file:///a.bin", mime_type="application/zip", blob=base64.b64encode(b"12345").decode()))
    link = ResourceLink(type="resource_link", uri="file:///b.txt", name="b", mime_type="text/plain")
    assert shown(text("see"), embedded, blob, link) == [
        "see",
        {"type": "resource", "uri": "file:///a.txt", "mime_type": "text/plain",
         "text": "the notes"},
        {"type": "resource", "uri": "file:///a.bin", "mime_type": "application/zip",
         "text": "[binary resource application/zip, 5 bytes: not shown]"},
        {"type": "resource_link", "uri": "file:///b.txt", "name": "b", "mime_type": "text/plain"},
    ]


def test_structured_content_with_an_image_keeps_both():
    image = ImageContent(type="image", data="AAAA", mime_type="image/gif")
    content = shown(text("{}"), image, structured={"ok": True})
    assert content["structured_content"] == {"ok": True}
    assert content["content"][0].startswith("[image image/gif, 3 bytes")


def test_a_huge_result_is_cut_with_a_note_saying_how_much():
    cut = shown(text("y" * 50_000), limit=1_000)
    assert cut.startswith("y" * 1_000) and "the result is 50000 characters long; the first " \
        "1000 are shown" in cut
    structured = shown(structured={"rows": ["z" * 100] * 1_000}, limit=1_000)
    assert isinstance(structured, str) and structured.startswith('{"rows": ["zzz')


def test_an_error_result_is_a_failure_carrying_the_server_text():
    with pytest.raises(ToolFailure) as failure:
        shown(text("no such file: a.txt"), error=True)
    assert failure.value.code is ErrorCode.TOOL_ERROR
    assert failure.value.message == "srv.tool failed: no such file: a.txt"
    with pytest.raises(ToolFailure, match="the server gave no reason"):
        shown(error=True)

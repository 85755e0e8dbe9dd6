"""Images in tool results and user messages, on every provider's wire (the official SDKs
against a local server: what each sends is what the server received)."""

from __future__ import annotations

import base64
import struct
import threading
import zlib
from typing import Any

import pytest

from autobyteus_like import Agent, AgentConfig, ImageContent, tool
from autobyteus_like.agent._call_results import success_result
from autobyteus_like.errors import LLMError
from autobyteus_like.hooks._session_writer import message_data
from autobyteus_like.llm import LLM, LLMRequest, Message
from autobyteus_like.llm._openai import OpenAILLM
from autobyteus_like.llm._openai_responses import OpenAIResponsesLLM
from autobyteus_like.store._records import MessageRecord
from autobyteus_like.store._restore import message_from
from autobyteus_like.tools import ToolInvocation
from autobyteus_like.tools._image_content import MAX_IMAGE_BYTES
from tests.llm.provider_helpers import anthropic_on, gemini_on, openai_on
from tests.llm.replay_server import Recorded, ReplayServer, Stream, fixture
from tests.llm.test_openai_responses_llm import recorded


def png(width: int = 1, height: int = 1) -> bytes:
    """A real PNG of that size (grey pixels)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data)))
    rows = b"".join(b"\x00" + b"\x80" * width for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0,
                                                               0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


PNG = png()
B64 = base64.b64encode(PNG).decode()
CALL = ToolInvocation(id="call_1", name="screenshot", arguments={})
RESULT = success_result(CALL, ["the screen:", ImageContent(PNG, "image/png")])
LABEL = f"[image 1: image/png, {len(PNG)} bytes]"
NATIVE = LLMRequest("", (Message("user", "look"), Message("assistant", "", tool_calls=(CALL,)),
                         Message("tool", "", tool_results=(RESULT,))))
FROM_USER = LLMRequest("", (Message("user", "What is this?",
                                    images=(ImageContent(PNG, "image/png"),)),))


def test_an_image_is_checked_named_and_kept_as_base64():
    assert RESULT.content == ["the screen:", LABEL]
    assert RESULT.images == (ImageContent(PNG, "image/png"),)
    assert ImageContent(B64, "image/png") == ImageContent(PNG, "image/png")
    dumped = RESULT.model_dump(mode="json")
    assert dumped["images"] == [{"data": B64, "media_type": "image/png"}]
    assert type(RESULT).model_validate(dumped) == RESULT
    with pytest.raises(ValueError, match="not a image/jpeg image"):
        ImageContent(PNG, "image/jpeg")
    with pytest.raises(ValueError, match="at most 5242880 bytes"):
        ImageContent(PNG + b"\0" * MAX_IMAGE_BYTES, "image/png")
    with pytest.raises(ValueError, match="must be base64"):
        ImageContent("not base64!", "image/png")
    with pytest.raises(ValueError, match="media_type"):
        ImageContent(PNG, "image/tiff")
    alone = success_result(CALL, ImageContent(PNG, "image/png"))
    assert (alone.content, len(alone.images)) == (LABEL, 1)


def serve(make: Any, reply: Stream | Recorded, request: LLMRequest) -> dict[str, Any]:
    """The body one provider sent for ``request``."""
    with ReplayServer([reply]) as server:
        for _ in make(server).stream(request, threading.Event()):
            pass
    return server.requests[0]


def openai_text() -> Stream:
    return Stream(fixture("openai/text"))


def claude_text() -> Stream:
    return Stream(fixture("anthropic/text"), named=True, done=False)


def gemini_text() -> Stream:
    return Stream(fixture("gemini/text"), done=False)


def responses_on(server: ReplayServer) -> LLM:
    return OpenAIResponsesLLM("gpt-4o", base_url=server.base_url, api_key="k")


def test_a_tool_results_image_on_each_providers_wire():
    chat = serve(openai_on, openai_text(), NATIVE)["messages"]
    assert chat[-2] == {"role": "tool", "tool_call_id": "call_1",
                        "content": f'["the screen:", "{LABEL}"]'}
    assert chat[-1] == {"role": "user", "content": [
        {"type": "text", "text": "The images the tool results above name:"},
        {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{B64}"}}]}
    claude = serve(anthropic_on, claude_text(), NATIVE)["messages"][-1]["content"]
    assert claude[0]["type"] == "tool_result" and claude[0]["content"][:2] == [
        {"type": "text", "text": f'["the screen:", "{LABEL}"]'},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": B64}}]
    gemini = serve(gemini_on, gemini_text(), NATIVE)["contents"][-1]["parts"]
    assert list(gemini[0]) == ["functionResponse"]
    # (the SDK passes the inner keys as given; the REST API reads snake_case as well)
    assert gemini[1] == {"inlineData": {"mime_type": "image/png", "data": B64}}
    responses = serve(responses_on, recorded("text.sse"), NATIVE)["input"][-1]
    assert responses == {"type": "function_call_output", "call_id": "call_1", "output": [
        {"type": "input_text", "text": f'["the screen:", "{LABEL}"]'},
        {"type": "input_image", "image_url": f"data:image/png;base64,{B64}"}]}


def test_a_users_image_on_each_providers_wire():
    url = f"data:image/png;base64,{B64}"
    assert serve(openai_on, openai_text(), FROM_USER)["messages"][-1]["content"] == [
        {"type": "text", "text": "What is this?"},
        {"type": "image_url", "image_url": {"url": url}}]
    claude = serve(anthropic_on, claude_text(), FROM_USER)["messages"][-1]["content"]
    assert claude[0] == {"type": "text", "text": "What is this?"}
    assert claude[1]["source"] == {"type": "base64", "media_type": "image/png", "data": B64}
    assert serve(gemini_on, gemini_text(), FROM_USER)["contents"][-1]["parts"] == [
        {"text": "What is this?"}, {"inlineData": {"mime_type": "image/png", "data": B64}}]
    assert serve(responses_on, recorded("text.sse"), FROM_USER)["input"][-1]["content"] == [
        {"type": "input_text", "text": "What is this?"},
        {"type": "input_image", "image_url": url}]


def test_a_model_without_vision_is_never_sent_an_image():
    with ReplayServer([openai_text()]) as server:
        blind = OpenAILLM("deepseek-chat", provider="deepseek", base_url=server.base_url,
                          api_key="k")
        with pytest.raises(LLMError, match="this model takes no images, and the conversation "
                                           "holds 1"):
            list(blind.stream(NATIVE, threading.Event()))
        assert server.requests == []
        told = OpenAILLM("deepseek-vl", provider="deepseek", base_url=server.base_url,
                         api_key="k", vision=True)
        list(told.stream(FROM_USER, threading.Event()))
    assert len(server.requests) == 1


@tool
def screenshot() -> list[object]:
    """Take a screenshot."""
    return ["the screen:", ImageContent(PNG, "image/png")]


def test_an_agent_sends_a_tools_image_natively_and_in_a_text_format():
    xml_call = [  # constructed: Claude writing an XML call
        {"type": "message_start", "message": {"id": "m", "type": "message", "role": "assistant",
         "model": "claude-sonnet-5", "content": [], "stop_reason": None, "stop_sequence": None,
         "usage": {"input_tokens": 50, "output_tokens": 1}}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {
            "type": "text_delta",
            "text": '<tool name="screenshot"><arguments></arguments></tool>'}},
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None},
         "usage": {"output_tokens": 12}},
        {"type": "message_stop"}]
    with ReplayServer([Stream(xml_call, named=True, done=False), claude_text()]) as server:
        config = AgentConfig(name="eyes", llm=anthropic_on(server, prompt_cache=False),
                             tools=[screenshot])
        with Agent(config) as agent:
            assert agent.format.name == "xml"
            assert agent.run("what is on screen?", timeout=20) == "Hello from Claude."
    text, image = server.requests[1]["messages"][-1]["content"]
    assert LABEL in text["text"] and image["source"]["data"] == B64
    with ReplayServer([recorded("function_call.sse"), recorded("text.sse")]) as server:
        @tool(name="get_capital")
        def capital_map(country: str) -> ImageContent:
            """A map of the capital."""
            return ImageContent(PNG, "image/png")
        config = AgentConfig(name="eyes", llm=responses_on(server), tools=[capital_map],
                             tool_format="native")
        with Agent(config) as agent:
            agent.run(["Where is the capital? Here is the country:",
                       ImageContent(png(2, 2), "image/png")], timeout=20)
    first, second = server.requests
    assert first["input"][0]["content"][0] == {
        "type": "input_text", "text": "Where is the capital? Here is the country:"}
    assert first["input"][0]["content"][1]["type"] == "input_image"
    assert second["input"][-1]["output"][1] == {
        "type": "input_image", "image_url": f"data:image/png;base64,{B64}"}


def test_images_survive_the_store_and_bad_messages_are_named():
    message = FROM_USER.messages[0]
    data = message_data(message)
    record = MessageRecord(agent="a", seq=0, epoch=0, role="user", content=data["content"],
                           images=data["images"])
    assert message_from(record) == message
    with ReplayServer([]) as server:
        config = AgentConfig(name="eyes", llm=openai_on(server))
        with Agent(config) as agent, pytest.raises(TypeError, match="message part 1 is a int"):
            agent.send(["text", 3])  # type: ignore[list-item]


def test_an_image_without_text_sends_no_empty_text_part():
    alone = LLMRequest("", (Message("user", "", images=(ImageContent(PNG, "image/png"),)),))
    assert [p["type"] for p in serve(openai_on, openai_text(), alone)["messages"][-1][
        "content"]] == ["image_url"]
    assert [b["type"] for b in serve(anthropic_on, claude_text(), alone)["messages"][-1][
        "content"]] == ["image"]
    assert [list(p) for p in serve(gemini_on, gemini_text(), alone)["contents"][-1][
        "parts"]] == [["inlineData"]]
    assert [p["type"] for p in serve(responses_on, recorded("text.sse"), alone)["input"][-1][
        "content"]] == ["input_image"]

"""MCP servers over HTTP on 127.0.0.1: streamable HTTP, SSE for servers that speak only that,
headers, tool-list changes, and a server that goes away."""

from __future__ import annotations

import pytest

from autobyteus_like import ToolFailure
from autobyteus_like.mcp import MCPToolset
from autobyteus_like.mcp._http_transport import SDK_SSE_EVENT_BYTES
from autobyteus_like.tools._invocation import ErrorCode
from tests.mcp.server_processes import sdk_http, wait_until


@pytest.mark.parametrize("kind", ["http", "sse"])
def test_tools_over_http_with_headers_changes_and_a_server_that_goes(kind):
    with sdk_http(kind) as (url, process):
        # transport "auto": streamable HTTP first, SSE when the server refuses it.
        toolset = MCPToolset.http(url, name="web", headers={"X-Team": "blue"})
        with toolset:
            tools = {tool.name: tool for tool in toolset.tools()}
            assert tools["web.add"].run({"a": 2, "b": 3}) == {"result": 5}
            if kind == "http":  # the SSE app does not pass request headers to tools
                assert tools["web.header"].run({"name": "X-Team"}) == {"result": "blue"}
            assert tools["web.grow"].run({}) == {"result": "grown"}
            # The notification comes over the network; nothing local signals its arrival.
            assert wait_until(lambda: "web.late" in {t.name for t in toolset.tools()})
            process.kill()
            process.wait()
            with pytest.raises(ToolFailure) as gone:
                tools["web.echo"].run({"text": "anyone?"})
            # Either the call finds the connection broken ("... reconnected on the next
            # call"), or the end of the server's event stream was seen first and the call
            # tried to reconnect at once: which one depends on timing, both are clean.
            assert gone.value.message.startswith("MCP server 'web' is not available: ")
            assert gone.value.message.endswith(("reconnected on the next call",
                                                "All connection attempts failed"))
            with pytest.raises(ToolFailure) as unreachable:
                tools["web.echo"].run({"text": "anyone?"})
            assert unreachable.value.message.startswith(
                "MCP server 'web' is not available: it could not be reached: cannot connect")


@pytest.mark.parametrize("kind", ["http", "json", "sse"])
@pytest.mark.parametrize("size, cap", [
    (3_000_000, 1_000_000),
    pytest.param(50_000_000, None, marks=pytest.mark.slow),  # the server takes seconds to send it
])
def test_a_reply_over_the_byte_cap_over_http_is_not_read_and_the_call_fails_at_once(
        kind, size, cap):
    """The byte cap holds on every HTTP transport (event-stream replies, JSON replies, the
    older SSE transport): a huge result ends its call with a TOOL_ERROR naming its size, the
    connection goes on; on SSE the cap is at most the SDK's own bound on an event."""
    transport = "sse" if kind == "sse" else "streamable-http"
    policy = {"timeout_s": 60} | ({"max_message_bytes": cap} if cap else {})
    limit = min(cap or 8_000_000, SDK_SSE_EVENT_BYTES) if kind == "sse" else cap or 8_000_000
    with sdk_http(kind) as (url, _), \
            MCPToolset.http(url, name="fx", transport=transport, **policy) as toolset:
        tools = {tool.name: tool for tool in toolset.tools()}
        with pytest.raises(ToolFailure) as caught:
            tools["fx.huge"].run({"size": size})
        assert caught.value.code == ErrorCode.TOOL_ERROR
        message = caught.value.message
        assert message.startswith("fx.huge: the server's message was "), message
        shown = int(message.split("was ")[1].split(" bytes")[0].replace(",", ""))
        assert size < shown < 2 * size + 1_000  # all of it (text and structured), counted
        assert f"over the cap of {limit:,} bytes (max_message_bytes)" in message
        assert tools["fx.echo"].run({"text": "still here"}) == {"result": "still here"}


@pytest.mark.parametrize("kind", ["http", "json"])
def test_a_reply_within_the_byte_cap_over_http_arrives_whole(kind):
    """A 3 MB result is under the default cap (8 MB): it arrives (the SDK's own 1 MiB bound
    on an event is not what decides)."""
    with sdk_http(kind) as (url, _), \
            MCPToolset.http(url, name="fx", transport="streamable-http",
                            max_result_chars=4_000_000) as toolset:
        tools = {tool.name: tool for tool in toolset.tools()}
        assert tools["fx.huge"].run({"size": 3_000_000}) == {"result": "x" * 3_000_000}

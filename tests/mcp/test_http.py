"""MCP servers over HTTP on 127.0.0.1: streamable HTTP, SSE for servers that speak only that,
headers, tool-list changes, and a server that goes away."""

from __future__ import annotations

import pytest

from autobyteus_like import ToolFailure
from autobyteus_like.mcp import MCPToolset
from tests.mcp.helpers import sdk_http, wait_until


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

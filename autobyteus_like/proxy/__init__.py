"""Working tool calls from a local model for clients of any framework: an OpenAI-compatible
Chat Completions endpoint in front of one upstream server, teaching the tools in a text format
(or natively, per the stored eval verdict) and answering with proper ``tool_calls``
(docs/models.md). Needs the ``web`` extra (Starlette, uvicorn)."""

from __future__ import annotations

from autobyteus_like.proxy._proxy_app import ProxySettings, build_proxy_app
from autobyteus_like.proxy._proxy_server import ProxyServer, serve_proxy

__all__ = ["ProxyServer", "ProxySettings", "build_proxy_app", "serve_proxy"]

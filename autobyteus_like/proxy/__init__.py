"""Working tool calls from a local model for clients of any framework: an OpenAI-compatible
Chat Completions endpoint in front of one upstream server, teaching the tools in a text format
(or natively, per the stored eval verdict) and answering with proper ``tool_calls``
(docs/models.md). Needs the ``web`` extra (Starlette, uvicorn), imported only when one of the
names below is used: the command line registers ``proxy`` without it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from autobyteus_like.proxy._app import ProxySettings, build_proxy_app
    from autobyteus_like.proxy._server import ProxyServer, serve_proxy

__all__ = ["ProxyServer", "ProxySettings", "build_proxy_app", "serve_proxy"]


def __getattr__(name: str) -> Any:
    if name in ("ProxySettings", "build_proxy_app"):
        from autobyteus_like.proxy import _app

        return getattr(_app, name)
    if name in ("ProxyServer", "serve_proxy"):
        from autobyteus_like.proxy import _server

        return getattr(_server, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

"""The ``proxy`` command: ``autobyteus-like proxy --upstream URL [--port P]
[--format auto|native|xml|json|...]``: an OpenAI-compatible endpoint that gives any client
working tool calls from the upstream's model."""

from __future__ import annotations

import argparse
import os
from typing import Any

from autobyteus_like._extras import require_extra
from autobyteus_like.errors import UsageError
from autobyteus_like.formats import ToolCallFormat

__all__ = ["add_proxy_command"]


def add_proxy_command(commands: Any) -> None:
    """``proxy --upstream URL ...``."""
    command = commands.add_parser(
        "proxy", help="serve an OpenAI-compatible endpoint with working tool calls",
        description="Serve /v1/chat/completions and /v1/models in front of an OpenAI-"
                    "compatible server, teaching tools in a text format and answering with "
                    "proper tool_calls.")
    command.add_argument("--upstream", required=True, metavar="URL",
                         help="the server's base URL, e.g. http://127.0.0.1:8080/v1")
    command.add_argument("--host", default="127.0.0.1", help="where to listen (127.0.0.1)")
    command.add_argument("--port", type=int, default=8000, help="the port (8000; 0: any)")
    command.add_argument("--format", default="auto", metavar="auto|native|xml|json|...",
                         help="how tools are taught: auto (the stored verdict, else learned), "
                              "native, or a text format")
    command.add_argument("--provider", default="openai", metavar="NAME",
                         help="the upstream's provider (the known formats' key: llamacpp, "
                              "ollama, vllm ...)")
    command.add_argument("--token-env", metavar="NAME",
                         help="require 'Authorization: Bearer $NAME' from clients")
    command.add_argument("--upstream-key-env", metavar="NAME",
                         help="send $NAME to the upstream as its API key")
    command.add_argument("--max-concurrency", type=int, default=8, metavar="N",
                         help="requests served at once (more get HTTP 429)")
    command.add_argument("--max-body-bytes", type=int, default=4 * 1024 * 1024, metavar="N",
                         help="the largest request body (more get HTTP 413)")
    command.add_argument("--on-malformed", choices=["error", "reask"], default="error",
                         help="a call the model wrote unreadably: an error for the client, or "
                              "ask the model once more")
    command.add_argument("--manifest", choices=["full", "compact"], default="full",
                         help="how a text format teaches the tools (compact: one line per tool "
                              "and a shown exchange, for small models)")
    command.add_argument("--timeout", type=float, default=300.0, metavar="S",
                         help="seconds an upstream request may take")
    command.set_defaults(handler=_proxy)


def _variable(name: str | None, option: str) -> str | None:
    if name is None:
        return None
    value = os.environ.get(name)
    if not value:
        raise UsageError(f"{option} {name}: the variable is not set")
    return value


def _proxy(args: argparse.Namespace) -> int:
    require_extra("web", "proxy")
    from autobyteus_like.proxy._app import ProxySettings
    from autobyteus_like.proxy._server import serve_proxy

    tool_format = args.format.strip().lower()
    if tool_format != "auto":
        try:
            tool_format = ToolCallFormat.parse(tool_format).value
        except ValueError as exc:
            raise UsageError(f"--format: {exc}") from None
    if args.max_concurrency < 1 or args.max_body_bytes < 1:
        raise UsageError("--max-concurrency and --max-body-bytes must be at least 1")
    if not args.upstream.startswith(("http://", "https://")):
        raise UsageError(f"--upstream {args.upstream!r}: expected an http(s) URL")
    settings = ProxySettings(args.upstream, tool_format=tool_format, provider=args.provider,
                             token=_variable(args.token_env, "--token-env"),
                             upstream_key=_variable(args.upstream_key_env,
                                                    "--upstream-key-env"),
                             max_concurrency=args.max_concurrency,
                             max_body_bytes=args.max_body_bytes,
                             reask=args.on_malformed == "reask", manifest=args.manifest,
                             timeout_s=args.timeout)
    serve_proxy(settings, args.host, args.port)
    return 0

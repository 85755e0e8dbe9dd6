"""A hostile MCP server over stdio, written by hand with the standard library only (so it starts
in milliseconds and can misbehave in ways the SDK would not let a server misbehave).

It speaks just enough of the protocol (``initialize``, ``tools/list``, ``tools/call``, and
answers ``server/discover`` with "method not found" so clients fall back to the handshake).
Its tools are named to break things: illegal characters, names that collide once cleaned, a
name listed twice, a schema that explodes when its ``$ref``s are inlined, one nested too deep,
one that is not valid JSON Schema, an essay for a description (and, with
``--broken-listing``, one whose schema is not even an object). Calling them returns malformed
content, a huge result, a line that is not JSON, no answer at all, or a changed tool list.
``RAW_SERVER_LOG`` names a file where every request's method and tool is appended.
"""

from __future__ import annotations

import json
import os
import sys

LOG = os.environ.get("RAW_SERVER_LOG")


def _schema(properties: dict[str, object] | None = None, **extra: object) -> dict[str, object]:
    return {"type": "object", "properties": properties or {}, **extra}


def _bomb(levels: int) -> dict[str, object]:
    defs = {f"d{i}": {"type": "object", "properties": {"a": {"$ref": f"#/$defs/d{i + 1}"},
                                                        "b": {"$ref": f"#/$defs/d{i + 1}"}}}
            for i in range(levels)}
    defs[f"d{levels}"] = {"type": "string"}
    return _schema({"x": {"$ref": "#/$defs/d0"}}, **{"$defs": defs})


def _deep(levels: int) -> dict[str, object]:
    node: dict[str, object] = {"type": "string"}
    for _ in range(levels):
        node = {"type": "object", "properties": {"n": node}}
    return _schema({"n": node})


TOOLS: list[dict[str, object]] = [
    {"name": "ok", "description": "Returns ok.", "inputSchema": _schema(
        {"n": {"type": "integer"}, "items": {"type": "array", "items": {"type": "string"}}},
        required=["n"], additionalProperties=False)},
    {"name": "read file", "description": "A name with a space.", "inputSchema": _schema()},
    {"name": "read_file", "description": "Collides with 'read file' once cleaned.",
     "inputSchema": _schema()},
    {"name": "ok", "description": "Listed twice.", "inputSchema": _schema()},
    {"name": "ünïcödé/tool", "description": "Not ASCII.", "inputSchema": _schema()},
    {"name": "x" * 300, "description": "A very long name.", "inputSchema": _schema()},
    {"name": "bomb", "description": "Its schema doubles at every $ref.", "inputSchema": _bomb(40)},
    {"name": "deep", "description": "Nested too deep.", "inputSchema": _deep(60)},
    {"name": "bad_schema", "description": "Invalid JSON Schema.",
     "inputSchema": _schema({"a": {"type": 12}})},
    {"name": "essay", "description": "word " * 20_000, "inputSchema": _schema()},
    {"name": "malformed", "description": "Returns content that is not MCP content.",
     "inputSchema": _schema()},
    {"name": "huge", "description": "Returns a huge text.", "inputSchema": _schema(
        {"size": {"type": "integer"}})},
    {"name": "garbage_line", "description": "Writes a line that is not JSON, then answers.",
     "inputSchema": _schema()},
    {"name": "silent", "description": "Never answers.", "inputSchema": _schema()},
    {"name": "change", "description": "Adds a tool and announces it.", "inputSchema": _schema()},
    {"name": "die", "description": "Exits mid-call.", "inputSchema": _schema()},
]
if "--broken-listing" in sys.argv:  # one tool that is not MCP at all spoils the listing
    TOOLS.append({"name": "not_a_schema", "description": "Its schema is text.",
                  "inputSchema": "hello"})
EXTRA = {"name": "added", "description": "Appeared after 'change'.", "inputSchema": _schema()}


def send(message: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def result(request_id: object, value: dict[str, object]) -> None:
    send({"jsonrpc": "2.0", "id": request_id, "result": value})


def text(request_id: object, value: str) -> None:
    result(request_id, {"content": [{"type": "text", "text": value}], "isError": False})


def call(request_id: object, name: str, arguments: dict[str, object]) -> None:
    if name == "ok":
        text(request_id, f"ok {json.dumps(arguments, sort_keys=True)}")
    elif name == "malformed":
        result(request_id, {"content": [{"type": "image"}], "isError": "perhaps"})
    elif name == "huge":
        size = arguments.get("size", 1_000_000)
        text(request_id, "y" * int(size))  # type: ignore[call-overload]
    elif name == "garbage_line":
        sys.stdout.write("this is not JSON-RPC\n")
        text(request_id, "answered after garbage")
    elif name == "silent":
        pass
    elif name == "change":
        if EXTRA not in TOOLS:
            TOOLS.append(EXTRA)
        text(request_id, "changed")
        send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
    elif name == "die":
        os._exit(7)
    else:
        text(request_id, f"called {name}")


def main() -> None:
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        method = message.get("method")
        request_id = message.get("id")
        params = message.get("params") or {}
        if LOG:
            with open(LOG, "a") as log:
                log.write(f"{method} {params.get('name', '')}\n")
        if request_id is None:  # a notification
            continue
        if method == "initialize":
            result(request_id, {"protocolVersion": "2025-06-18",
                                "capabilities": {"tools": {"listChanged": True}},
                                "serverInfo": {"name": "raw", "version": "1"}})
        elif method == "tools/list":
            result(request_id, {"tools": TOOLS})
        elif method == "tools/call":
            call(request_id, str(params.get("name")), params.get("arguments") or {})
        elif method == "ping":
            result(request_id, {})
        else:
            send({"jsonrpc": "2.0", "id": request_id,
                  "error": {"code": -32601, "message": f"method not found: {method}"}})


if __name__ == "__main__":
    main()

"""A real OpenAI-compatible Chat Completions server on 127.0.0.1 whose model is a function of
the request: ``ChatServer(answer)`` where ``answer(body)`` gives a ``Reply`` (text, native tool
calls, or an HTTP error). It serves ``/v1/chat/completions`` streamed (SSE, text in pieces,
each tool call's arguments split in two deltas) and whole, and ``/v1/models``. The official
SDK (or our proxy) is pointed at it with ``base_url``; nothing of ours is mocked."""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["ChatServer", "Reply", "last_user_text", "system_text"]


@dataclass
class Reply:
    """What the model says: ``text``, and ``calls`` as (name, arguments) pairs; or an error
    ``status`` with ``error`` as its message."""

    text: str = ""
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    status: int = 200
    error: str = ""
    usage: tuple[int, int] = (10, 5)


def system_text(body: dict[str, Any]) -> str:
    """The request's system prompt ("" without one)."""
    return next((str(m.get("content") or "") for m in body.get("messages", [])
                 if m.get("role") == "system"), "")


def last_user_text(body: dict[str, Any]) -> str:
    """The content of the request's last user message."""
    users = [m for m in body.get("messages", []) if m.get("role") == "user"]
    content = users[-1].get("content") if users else ""
    return content if isinstance(content, str) else json.dumps(content)


class ChatServer:
    """``with ChatServer(answer) as server:`` then ``server.base_url``; ``server.requests``
    holds every chat request body, in order."""

    def __init__(self, answer: Callable[[dict[str, Any]], Reply], model: str = "m") -> None:
        self.answer = answer
        self.model = model
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                if self.path.rstrip("/").endswith("/models"):
                    self._json(200, {"object": "list", "data": [
                        {"id": outer.model, "object": "model", "owned_by": "test"}]})
                else:
                    self._json(404, {"error": {"message": f"no {self.path}"}})

            def do_POST(self) -> None:
                # a client that went away (a cut request) gets no answer
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    self._post()

            def _post(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                with outer._lock:
                    outer.requests.append(body)
                reply = outer.answer(body)
                if reply.status != 200:
                    self._json(reply.status, {"error": {"message": reply.error,
                                                        "type": "server_error"}})
                elif body.get("stream"):
                    self._stream(reply)
                else:
                    self._json(200, _completion(reply, outer.model))

            def _json(self, status: int, data: dict[str, Any]) -> None:
                raw = json.dumps(data).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def _stream(self, reply: Reply) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Connection", "close")
                self.close_connection = True
                self.end_headers()
                for delta in _deltas(reply):
                    chunk = {"id": "chatcmpl-1", "object": "chat.completion.chunk",
                             "created": 1, "model": outer.model, "choices": [
                                 {"index": 0, "delta": delta, "finish_reason": None}]}
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                finish = "tool_calls" if reply.calls else "stop"
                last = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1,
                        "model": outer.model,
                        "choices": [{"index": 0, "delta": {}, "finish_reason": finish}],
                        "usage": {"prompt_tokens": reply.usage[0],
                                  "completion_tokens": reply.usage[1],
                                  "total_tokens": sum(reply.usage)}}
                self.wfile.write(f"data: {json.dumps(last)}\n\ndata: [DONE]\n\n".encode())
                self.wfile.flush()

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = False
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.02,),
                                        name="chat-server")

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def __enter__(self) -> ChatServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()


def _deltas(reply: Reply) -> list[dict[str, Any]]:
    deltas: list[dict[str, Any]] = [{"role": "assistant", "content": ""}]
    text = reply.text
    for start in range(0, len(text), 7):
        deltas.append({"content": text[start:start + 7]})
    for index, (name, arguments) in enumerate(reply.calls):
        raw = json.dumps(arguments)
        half = len(raw) // 2
        deltas.append({"tool_calls": [{"index": index, "id": f"call_{index}", "type": "function",
                                       "function": {"name": name, "arguments": raw[:half]}}]})
        deltas.append({"tool_calls": [{"index": index, "function": {"arguments": raw[half:]}}]})
    return deltas


def _completion(reply: Reply, model: str) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
    if reply.calls:
        message["tool_calls"] = [
            {"id": f"call_{i}", "type": "function",
             "function": {"name": name, "arguments": json.dumps(arguments)}}
            for i, (name, arguments) in enumerate(reply.calls)]
    return {"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": model,
            "choices": [{"index": 0, "message": message,
                         "finish_reason": "tool_calls" if reply.calls else "stop"}],
            "usage": {"prompt_tokens": reply.usage[0], "completion_tokens": reply.usage[1],
                      "total_tokens": sum(reply.usage)}}

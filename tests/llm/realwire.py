"""The recorded provider traffic in ``shared/realwire`` (outside the repository; never copied
in), and what each recording itself says: read here from its bytes with a small SSE reader of
its own (the WHATWG rules), no SDK and no code of the package.

``expected(fixture)`` gives the text, client tool calls, usage and finish reason of a stream,
or the error it carries; the usage and finish reason are restated in the common meaning the
providers promise (input counts cached tokens, output counts reasoning; one finish vocabulary).
"""

from __future__ import annotations

import gzip
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from autobyteus_like.llm import NativeToolCall, TokenUsage


def realwire_dir() -> Path | None:
    """``$AUTOBYTEUS_REALWIRE``, else the first ``shared/realwire`` above this file."""
    given = os.environ.get("AUTOBYTEUS_REALWIRE")
    candidates = [Path(given)] if given else [
        parent / "shared" / "realwire" for parent in Path(__file__).resolve().parents]
    return next((path for path in candidates if (path / "index.json").is_file()), None)


@dataclass(frozen=True)
class Fixture:
    """One recording and its entry in ``index.json``."""

    entry: dict[str, Any]
    root: Path

    @property
    def name(self) -> str:
        return str(self.entry["name"])

    @property
    def provider(self) -> str:
        return str(self.entry["provider"])

    @property
    def raw(self) -> bytes:
        """The body exactly as recorded (gzip bytes stay gzip)."""
        return (self.root / self.entry["file"]).read_bytes()

    @property
    def body(self) -> bytes:
        """The body as a client reads it."""
        raw = self.raw
        return gzip.decompress(raw) if self.entry.get("content_encoding") == "gzip" else raw

    @property
    def headers(self) -> dict[str, str]:
        encoding = self.entry.get("content_encoding")
        return {"Content-Encoding": encoding} if encoding else {}

    @property
    def pinned_tools(self) -> list[str] | None:
        pinned = self.entry.get("pinned")
        return list(pinned["tools"]) if pinned else None


def fixtures(root: Path) -> list[Fixture]:
    index = json.loads((root / "index.json").read_text())
    return [Fixture(entry, root) for entry in index["fixtures"]]


@dataclass
class Expected:
    """What a recording says the response was."""

    text: str = ""
    calls: list[NativeToolCall] = field(default_factory=list)
    usage: TokenUsage | None = None
    finish: str | None = None
    """As the provider said it."""
    error_status: int | None = None
    error_message: str | None = None

    @property
    def failed(self) -> bool:
        return self.error_message is not None


def sse_events(body: bytes) -> list[tuple[str, str]]:
    """``(event type, data)`` of each dispatched event (type "message" when not named)."""
    events: list[tuple[str, str]] = []
    kind, data = "", []
    for line in body.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        if not line:
            if data:
                events.append((kind or "message", "\n".join(data)))
            kind, data = "", []
            continue
        if line.startswith(":"):
            continue  # a comment (": OPENROUTER PROCESSING")
        name, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if name == "event":
            kind = value
        elif name == "data":
            data.append(value)
        # any other field, " data" with its leading space included, is ignored by the rules
    return events


def expected(fixture: Fixture) -> Expected:
    """What the recording says, for its provider."""
    if fixture.entry["status"] >= 400:
        error = json.loads(fixture.body)["error"]
        return Expected(error_status=fixture.entry["status"], error_message=error["message"])
    events = sse_events(fixture.body)
    read = {"openai": _openai, "anthropic": _anthropic, "gemini": _gemini}[fixture.provider]
    return read(events)


def _openai(events: list[tuple[str, str]]) -> Expected:
    result = Expected()
    calls: dict[int, dict[str, Any]] = {}
    for kind, data in events:
        if data.startswith("[DONE]"):
            break
        chunk = json.loads(data)
        if kind == "error" or chunk.get("error"):
            error = chunk["error"]
            status = error.get("status_code", error.get("code"))
            result.error_status = status if isinstance(status, int) else None
            result.error_message = error["message"]
            return result
        if chunk.get("usage"):
            usage = chunk["usage"]
            result.usage = TokenUsage(
                usage["prompt_tokens"], usage["completion_tokens"],
                (usage.get("completion_tokens_details") or {}).get("reasoning_tokens"),
                (usage.get("prompt_tokens_details") or {}).get("cached_tokens"))
        for choice in chunk.get("choices") or []:
            delta = choice.get("delta") or {}
            result.text += delta.get("content") or ""
            for piece in delta.get("tool_calls") or []:
                call = calls.setdefault(piece.get("index", 0), {"id": None, "name": None,
                                                                 "arguments": ""})
                function = piece.get("function") or {}
                # the whole id and name come with a call's first delta (some servers repeat
                # them later; they are the same value again)
                call["id"] = call["id"] or piece.get("id") or None
                call["name"] = call["name"] or function.get("name") or None
                call["arguments"] += function.get("arguments") or ""
            result.finish = choice.get("finish_reason") or result.finish
    result.calls = [NativeToolCall(c["id"], c["name"], c["arguments"])
                    for _, c in sorted(calls.items())]
    return result


def _anthropic(events: list[tuple[str, str]]) -> Expected:
    result = Expected()
    blocks: dict[int, dict[str, Any]] = {}
    counts: dict[str, int] = {}
    thinking = None
    for kind, data in events:
        message = json.loads(data)
        if kind == "error" or message.get("type") == "error":
            result.error_message = message["error"]["message"]
            return result
        usage = None
        if message["type"] == "message_start":
            usage = message["message"]["usage"]
        elif message["type"] == "message_delta":
            usage = message["usage"]
            result.finish = message["delta"].get("stop_reason") or result.finish
        elif message["type"] == "content_block_start" and \
                message["content_block"]["type"] == "tool_use":
            block = message["content_block"]
            blocks[message["index"]] = {"id": block["id"], "name": block["name"],
                                        "input": block.get("input") or {}, "json": ""}
        elif message["type"] == "content_block_delta":
            delta = message["delta"]
            if delta["type"] == "text_delta":
                result.text += delta["text"]
            elif delta["type"] == "input_json_delta" and message["index"] in blocks:
                blocks[message["index"]]["json"] += delta["partial_json"]
        if usage:
            counts.update({k: v for k, v in usage.items() if isinstance(v, int)})
            thinking = (usage.get("output_tokens_details") or {}).get("thinking_tokens", thinking)
    read = counts.get("cache_read_input_tokens")
    result.usage = TokenUsage(
        counts["input_tokens"] + (read or 0) + counts.get("cache_creation_input_tokens", 0),
        counts["output_tokens"], thinking, read)
    result.calls = [NativeToolCall(b["id"], b["name"], b["json"] or json.dumps(b["input"]))
                    for _, b in sorted(blocks.items())]
    return result


def _gemini(events: list[tuple[str, str]]) -> Expected:
    result = Expected()
    for _, data in events:
        chunk = json.loads(data)
        for candidate in chunk.get("candidates") or []:
            for part in (candidate.get("content") or {}).get("parts") or []:
                if part.get("text") and not part.get("thought"):
                    result.text += part["text"]
                if "functionCall" in part:
                    call = part["functionCall"]
                    result.calls.append(NativeToolCall(call.get("id"), call["name"],
                                                       json.dumps(call.get("args") or {})))
            result.finish = candidate.get("finishReason") or result.finish
        if meta := chunk.get("usageMetadata"):
            thoughts = meta.get("thoughtsTokenCount")
            result.usage = TokenUsage(
                meta.get("promptTokenCount", 0) + meta.get("toolUsePromptTokenCount", 0),
                meta.get("candidatesTokenCount", 0) + (thoughts or 0),
                thoughts, meta.get("cachedContentTokenCount"))
    return result


NORMAL_FINISH = {
    "openai": {"function_call": "tool_calls"},
    "anthropic": {"end_turn": "stop", "stop_sequence": "stop", "max_tokens": "length",
                  "tool_use": "tool_calls", "refusal": "content_filter"},
    "gemini": {"STOP": "stop", "MAX_TOKENS": "length", "SAFETY": "content_filter",
               "RECITATION": "content_filter"},
}


def normal_finish(provider: str, raw: str | None, made_calls: bool) -> str | None:
    """The common vocabulary; a Gemini STOP after function calls is "tool_calls"."""
    if raw is None:
        return None
    normal = NORMAL_FINISH[provider].get(raw, raw)
    return "tool_calls" if provider == "gemini" and normal == "stop" and made_calls else normal

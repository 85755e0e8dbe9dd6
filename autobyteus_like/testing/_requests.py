"""What the framework sent, compared (``--check-requests``): per member, the first request whose
system prompt, tools manifest or messages differ, as the model saw them (after the history
processors and the text format's rendering)."""

from __future__ import annotations

import difflib
import json
from collections.abc import Mapping
from typing import Any

__all__ = ["compare_requests", "shown_request"]


def shown_request(request: Mapping[str, Any]) -> dict[str, Any]:
    """A request as compared: call ids left out (a text format numbers its calls anew)."""
    return {"system_prompt": request.get("system_prompt"), "tools": request.get("tools"),
            "messages": [_message(message) for message in request.get("messages", [])]}


def _message(message: Mapping[str, Any] | None) -> dict[str, Any]:
    if not message:
        return {}
    shown: dict[str, Any] = {"role": message.get("role"), "content": message.get("content")}
    if message.get("tool_calls"):
        shown["tool_calls"] = [{"name": call.get("name"), "arguments": call.get("arguments")}
                               for call in message["tool_calls"]]
    if message.get("tool_results"):
        shown["tool_results"] = [{"status": result.get("status"),
                                  "content": result.get("content")}
                                 for result in message["tool_results"]]
    return shown


def compare_requests(expected: Mapping[str, list[dict[str, Any]]],
                     actual: Mapping[str, list[dict[str, Any]]]) -> list[str]:
    """Per member, the first request that differs, as a diff of what the model was shown."""
    problems = []
    for member in sorted(set(expected) | set(actual)):
        want, got = expected.get(member, []), actual.get(member, [])
        for number, (old, new) in enumerate(zip(want, got, strict=False), start=1):
            old_shown, new_shown = shown_request(old), shown_request(new)
            if old_shown != new_shown:
                parts = [part for part in ("system_prompt", "tools", "messages")
                         if old_shown[part] != new_shown[part]]
                problems.append(f"{member}: request {number} differs in {', '.join(parts)}:\n"
                                + diff_text(old_shown, new_shown))
                break
        else:
            if len(want) != len(got):
                problems.append(f"{member}: {len(want)} requests recorded, {len(got)} sent")
    return problems


def diff_text(old: Any, new: Any, names: tuple[str, str] = ("recorded", "sent")) -> str:
    """A unified diff of two values as indented JSON."""
    return "\n".join(difflib.unified_diff(
        json.dumps(old, indent=1, ensure_ascii=False, sort_keys=True).splitlines(),
        json.dumps(new, indent=1, ensure_ascii=False, sort_keys=True).splitlines(),
        *names, lineterm="", n=2))

"""SessionLog: an append-only record of every tool call and result of one agent (seed 001).

Markdown with one YAML block per record (the seed's format), or JSON lines. Each record is
written whole, flushed and synced before the call goes on, so a crash loses nothing already
recorded. Records are redacted like events.
"""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from autobyteus_like.tools.invocation import ToolInvocation, ToolResult

__all__ = ["SessionLog"]


class SessionLog:
    """Appends records to ``path`` (its directory is created)."""

    def __init__(self, path: Path, agent: str,
                 format: Literal["markdown", "jsonl"] = "markdown") -> None:
        self.path = Path(path)
        self.agent = agent
        self.format = format
        self.path.parent.mkdir(parents=True, exist_ok=True)

    def record_call(self, invocation: ToolInvocation) -> None:
        """A call the LLM made (arguments already redacted)."""
        self._append({"type": "tool_call", "agent": self.agent, "id": invocation.id,
                      "tool": invocation.name, "why": invocation.why,
                      "args": invocation.arguments})

    def record_result(self, result: ToolResult) -> None:
        """A call's result (content already redacted)."""
        record: dict[str, Any] = {"type": "tool_result", "agent": self.agent,
                                  "id": result.invocation_id, "tool": result.tool_name,
                                  "status": result.status}
        if result.error is not None:
            record["error"] = result.error.model_dump(mode="json")
        else:
            record["content"] = result.content
        self._append(record)

    def _append(self, record: dict[str, Any]) -> None:
        record = {"time": datetime.now(UTC).isoformat(timespec="milliseconds"), **record}
        if self.format == "jsonl":
            text = json.dumps(record, ensure_ascii=False, default=str) + "\n"
        else:
            import yaml

            body = yaml.safe_dump(record, sort_keys=False, allow_unicode=True, width=100)
            text = f"## {record['type']} {record['id']}\n\n```yaml\n{body}```\n\n"
        with self.path.open("a", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())

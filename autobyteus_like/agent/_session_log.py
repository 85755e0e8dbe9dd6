"""SessionLog: an append-only record of every tool call and result of one agent (seed 001).

Markdown with one YAML block per record (the seed's format), or JSON lines. Each record is
written with one ``write`` to a file opened for appending and synced before the agent goes on
(and before anyone is shown the event it records), so a crash loses nothing already shown and
never leaves half a record behind a whole one. Records are redacted like events. Text that UTF-8
cannot hold (lone surrogates, as in undecodable file names) is written escaped, never fatal.
``SessionLogHooks`` writes it from the turn's hooks (a call parsed, a call finished).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from autobyteus_like.hooks._protocol import AgentHooks, CallView, TurnView
from autobyteus_like.tools._invocation import ToolInvocation, ToolResult
from autobyteus_like.tools._redaction import redact_invocation, redact_result

__all__ = ["SessionLog", "SessionLogHooks"]

_BACKTICKS = re.compile(r"`+")


class SessionLog:
    """Appends records to ``path`` (its directory is created)."""

    def __init__(self, path: Path, agent: str,
                 format: Literal["markdown", "jsonl"] = "markdown") -> None:
        self.path = Path(path)
        self.agent = agent
        self.format = format
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fd: int | None = None

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

    def close(self) -> None:
        """Release the file (the next record opens it again)."""
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)

    def _append(self, record: dict[str, Any]) -> None:
        record = {"time": datetime.now(UTC).isoformat(timespec="milliseconds"), **record}
        try:
            data = self._render(record, escape=False).encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate somewhere: write it as an escape
            data = self._render(record, escape=True).encode("utf-8")
        if self._fd is None:
            self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC,
                               0o644)
        view = memoryview(data)
        while view:
            view = view[os.write(self._fd, view):]
        os.fsync(self._fd)

    def _render(self, record: dict[str, Any], *, escape: bool) -> str:
        if self.format == "jsonl":
            return json.dumps(record, ensure_ascii=escape, default=str) + "\n"
        import yaml

        # YAML escapes what UTF-8 cannot hold by itself. The heading's id is the LLM's text:
        # written as a JSON string it stays on one line whatever it holds, and the fence is
        # longer than any run of backticks in the body, so no value can close it early and
        # forge a record of its own.
        body = yaml.safe_dump(record, sort_keys=False, allow_unicode=True, width=100)
        fence = "`" * max(3, 1 + max((len(run) for run in _BACKTICKS.findall(body)), default=0))
        heading = f"{record['type']} {json.dumps(record['id'], ensure_ascii=escape)}"
        return f"## {heading}\n\n{fence}yaml\n{body}{fence}\n\n"


class SessionLogHooks(AgentHooks):
    """Records each call and result (redacted) in a ``SessionLog`` as the turn goes, before its
    event is shown; a log that cannot be written is reported (``report``), never fatal."""

    def __init__(self, log: SessionLog, report: Callable[[str, str], None]) -> None:
        self.log = log
        self._report = report

    def call_parsed(self, turn: TurnView, call: CallView) -> None:
        try:
            self.log.record_call(redact_invocation(call.invocation, call.tool))
        except Exception as exc:
            self._report(f"cannot write the session log: {exc}", type(exc).__name__)

    def call_finished(self, turn: TurnView, call: CallView) -> None:
        assert call.result is not None
        try:
            self.log.record_result(redact_result(call.result, call.tool))
        except Exception as exc:
            self._report(f"cannot write the session log: {exc}", type(exc).__name__)

    def close(self) -> None:
        self.log.close()

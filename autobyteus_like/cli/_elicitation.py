"""An MCP server's elicitation at the terminal (``autobyteus-like run``): ``TerminalElicitation``
is the toolsets' ``on_elicitation`` callback (called on a worker thread; ``mcp/_elicitation.py``
checks the schema and the answer, and declines when nobody answers within the server's
``elicitation_timeout_s``). The person is asked each field, one question at a time; the
approval prompts and these share a lock (``TERMINAL``), so two never mix.
"""

from __future__ import annotations

import threading
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console

    from autobyteus_like.mcp import ElicitationHandler, ElicitationRequest
    from autobyteus_like.team import TeamConfig
    from autobyteus_like.tools._registry import ToolSource

__all__ = ["TERMINAL", "TerminalElicitation", "mcp_sources"]

TERMINAL = threading.Lock()
"""The one terminal's: held while a person is asked something there (an approval, an
elicitation), so that two questions never mix."""


class TerminalElicitation:
    """Ask the person at the terminal what an MCP server wants to know."""

    def __init__(self, console: Console, lock: threading.Lock | None = None,
                 stream: IO[str] | None = None) -> None:
        self.console = console
        self.lock = lock or TERMINAL
        """Held while asking: the approval prompts take it too."""
        self._stream: Any = None if stream is None else _Ending(stream)  # (tests; else tty)

    def __call__(self, request: ElicitationRequest) -> dict[str, Any] | bool | None:
        from rich.markup import escape
        from rich.prompt import Confirm

        with self.lock:
            try:
                self.console.print(f"[bold]MCP server {escape(request.server)}[/bold] asks: "
                                   f"{escape(request.message)}")
                if not Confirm.ask("Answer it?", console=self.console, stream=self._stream):
                    self.console.print("declined")
                    return None
                properties = request.schema.get("properties", {})
                required = set(request.schema.get("required", []))
                answer: dict[str, Any] = {}
                for name, spec in properties.items():
                    value = self._field(name, spec, name in required)
                    if value is not None:
                        answer[name] = value
                return answer
            except (EOFError, KeyboardInterrupt):  # the input ended: nobody to answer
                self.console.print("no answer (the input ended); declined")
                return None
            except ValueError as exc:  # a number that is not one: nothing is sent
                self.console.print(f"not an answer ({exc}); declined")
                return None

    def _field(self, name: str, spec: dict[str, Any], required: bool) -> Any:
        from rich.prompt import Confirm, Prompt

        kind = spec.get("type")
        label = spec.get("title") or name
        if spec.get("description"):
            label += f" ({spec['description']})"
        if kind == "boolean":
            return Confirm.ask(label, console=self.console, stream=self._stream)
        choices = spec.get("enum")
        default = spec.get("default")
        options: dict[str, Any] = {}
        if default is not None:
            options["default"] = str(default)
        elif not required:
            options.update(default="", show_default=False)
        text = Prompt.ask(label + ("" if required else " (Enter to leave out)"),
                          console=self.console, stream=self._stream,
                          choices=[str(c) for c in choices] if choices else None, **options)
        if text == "" and not required:
            return None
        if kind == "integer":
            return int(text)
        if kind == "number":
            return float(text)
        return text


class _Ending:
    """A stream whose end is ``EOFError``, as the terminal's is (a prompt asks again on an
    empty line: at the end of a stream it would ask for ever)."""

    def __init__(self, stream: IO[str]) -> None:
        self._stream = stream

    def readline(self) -> str:
        line = self._stream.readline()
        if not line:
            raise EOFError
        return line


def mcp_sources(config: TeamConfig, on_elicitation: ElicitationHandler | None
                ) -> tuple[TeamConfig, tuple[ToolSource, ...]]:
    """``config`` without its ``mcp_servers``, and the toolsets made of them, whose servers'
    elicitations go to ``on_elicitation`` (None: declined at once)."""
    if not config.mcp_servers:
        return config, ()
    from autobyteus_like.mcp._toolset import MCPToolset

    sources = tuple(MCPToolset(name, server, on_elicitation=on_elicitation)
                    for name, server in config.mcp_servers.items())
    return config.model_copy(update={"mcp_servers": {}}), sources

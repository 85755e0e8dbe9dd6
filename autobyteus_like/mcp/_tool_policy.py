"""ToolPolicy: which of a server's tools are offered, which wait for approval, which arguments
are masked; read from its ``MCPServerConfig`` with shell-style patterns on the server's names."""

from __future__ import annotations

from collections.abc import Iterable
from fnmatch import fnmatchcase

from autobyteus_like.mcp._server_config import MCPServerConfig

__all__ = ["ToolPolicy"]


def _matches(name: str, patterns: Iterable[str]) -> bool:
    return any(fnmatchcase(name, pattern) for pattern in patterns)


class ToolPolicy:
    """The per-server policy, applied when its tools become ``ToolDefinition``s."""

    def __init__(self, config: MCPServerConfig) -> None:
        self._config = config

    def offered(self, name: str) -> bool:
        """Whether the tool is given to agents at all (denied tools are not even listed)."""
        if _matches(name, self._config.deny):
            return False
        return self._config.allow is None or _matches(name, self._config.allow)

    def requires_approval(self, name: str) -> bool:
        """Whether its calls are marked to wait for approval."""
        marked = self._config.requires_approval
        return marked if isinstance(marked, bool) else _matches(name, marked)

    def masked_arguments(self, name: str) -> tuple[str, ...]:
        """Arguments masked in events, logs and the session log."""
        masked: list[str] = []
        for pattern, arguments in self._config.masked_arguments.items():
            if fnmatchcase(name, pattern):
                masked.extend(a for a in arguments if a not in masked)
        return tuple(masked)

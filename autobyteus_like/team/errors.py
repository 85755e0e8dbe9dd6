"""ConfigError: a team configuration that cannot be loaded, with every problem located."""

from __future__ import annotations

from pathlib import Path

__all__ = ["ConfigError"]


class ConfigError(ValueError):
    """Each problem reads ``FILE: path.inside.file: what is wrong``."""

    def __init__(self, source: str | Path, problems: list[str]) -> None:
        self.source = str(source)
        self.problems = problems
        super().__init__("\n".join(f"{self.source}: {problem}" for problem in problems))

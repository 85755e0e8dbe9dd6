"""A pydantic ``ValidationError`` of a config as located problems (``members[0].llm: ...``),
for ``ConfigError``: one wording for a mistake made in YAML and the same mistake in Python."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ValidationError

from autobyteus_like.errors import ConfigError

__all__ = ["ConfigModel", "config_error", "describe_problem"]


def describe_problem(error: Any) -> str:
    """One pydantic error as ``where: what``."""
    parts: list[str] = []
    for part in error.get("loc", ()):
        if isinstance(part, int):
            parts[-1:] = [f"{parts[-1] if parts else ''}[{part}]"]
        else:
            parts.append(str(part))
    where = ".".join(parts) or "(top level)"
    message = str(error.get("msg", "invalid"))
    message = message.removeprefix("Value error, ")
    if error.get("type") == "missing":
        message = "missing required field"
    elif error.get("type") == "extra_forbidden":
        message = "unknown field"
    return f"{where}: {message}"


def config_error(source: str, exc: ValidationError) -> ConfigError:
    """The ``ConfigError`` saying what ``exc`` found, each problem located."""
    return ConfigError(source, [describe_problem(error) for error in exc.errors()])


class ConfigModel(BaseModel):
    """The base of a config (``AgentConfig``, ``TeamConfig``): built in Python, a mistake is
    a ``ConfigError`` worded as for the same mistake in YAML."""

    if not TYPE_CHECKING:  # type checkers keep the fields' own signature
        def __init__(self, **data: Any) -> None:
            """As pydantic's, but a mistake is a ``ConfigError``."""
            try:
                super().__init__(**data)
            except ValidationError as exc:
                raise config_error(f"{type(self).__name__}(name={data.get('name')!r})",
                                   exc) from None

        # pydantic calls a custom __init__ while validating data too (nested members, YAML):
        # marked as its own, this one runs only when the config is built in Python.
        __init__.__pydantic_base_init__ = True  # type: ignore[attr-defined]

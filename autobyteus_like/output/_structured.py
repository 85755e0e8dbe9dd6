"""The provider's own structured output as the way an answer is given (``output_mode``
"provider"): the request carries the answer's JSON schema and the answer is the JSON text the
model writes; the end-of-turn check reads it as it reads any answer written as text."""

from __future__ import annotations

from typing import Any

from autobyteus_like.errors import ConfigError
from autobyteus_like.formats import NATIVE
from autobyteus_like.llm._base import LLM
from autobyteus_like.output._spec import OutputSpec

__all__ = ["provider_schema"]


def provider_schema(agent: str, spec: OutputSpec | None, mode: str, format_name: str,
                    llm: LLM) -> dict[str, Any] | None:
    """The schema to send with each request (None for ``output_mode`` "tool"), or a
    ``ConfigError`` saying why this agent cannot have it."""
    if spec is None or mode != "provider":
        return None
    where = f"agent {agent!r}"
    if format_name != NATIVE:
        raise ConfigError(where, ["output_mode 'provider' needs tool_format 'native' (a "
                                  "JSON-only answer leaves no room for calls written as "
                                  "text); use output_mode 'tool'"])
    if not llm.follows_response_schema:
        raise ConfigError(where, [f"output_mode 'provider': {llm.provider.value} has no "
                                  "structured output here; use output_mode 'tool'"])
    return spec.response_schema()

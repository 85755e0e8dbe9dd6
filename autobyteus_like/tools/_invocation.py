"""The call and result types every layer above the tools shares."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from autobyteus_like.errors import ErrorCode
from autobyteus_like.tools._image_content import ImageContent

__all__ = ["ErrorCode", "ParseErrorInfo", "ToolErrorInfo", "ToolInvocation", "ToolResult"]


class ToolInvocation(BaseModel):
    """One call an LLM asked for: a session-unique id, the tool's name and its arguments."""

    model_config = ConfigDict(frozen=True)

    id: str = Field(min_length=1)
    name: str = Field(min_length=1)
    arguments: dict[str, Any] = Field(default_factory=dict)
    why: str | None = None
    """The model's one-sentence rationale (seed 001 ``why`` / seed 004 ``reasoning``)."""


class ToolErrorInfo(BaseModel):
    """Why a call failed, in seed 001's shape: what the LLM needs to recover."""

    model_config = ConfigDict(frozen=True)

    code: ErrorCode
    message: str
    recoverable: bool = True
    suggestion: str | None = None


@dataclass(frozen=True, slots=True)
class ParseErrorInfo:
    """A call the model meant but wrote wrongly: what is wrong, in words it can act on (a
    parser finds it; a native call read from a text reply carries it)."""

    message: str
    snippet: str
    index: int
    """The call's position among this response's calls (valid and failed alike)."""
    format: str
    name: str | None = None
    id: str | None = None


class ToolResult(BaseModel):
    """The outcome of one invocation: a JSON-serialisable value, or an error."""

    model_config = ConfigDict(frozen=True)

    invocation_id: str
    tool_name: str
    status: Literal["success", "failure"]
    content: Any = None
    """Any JSON value: null, booleans, numbers, strings, lists and string-keyed objects."""
    error: ToolErrorInfo | None = None
    images: tuple[ImageContent, ...] = ()
    """Images the tool returned; ``content`` names each (``[image 1: image/png, ...]``)."""

    @field_validator("content")
    @classmethod
    def _json_value(cls, value: Any) -> Any:
        problem = _not_json(value)
        if problem:
            raise ValueError(f"content must be JSON-serialisable: {problem}")
        return value

    @model_validator(mode="after")
    def _error_matches_status(self) -> ToolResult:
        if self.status == "failure" and self.error is None:
            raise ValueError("a failed ToolResult needs an error")
        if self.status == "success" and self.error is not None:
            raise ValueError("a successful ToolResult cannot carry an error")
        return self

    @classmethod
    def success(cls, invocation: ToolInvocation, content: Any) -> ToolResult:
        """The result of a call that worked."""
        return cls(
            invocation_id=invocation.id, tool_name=invocation.name, status="success",
            content=content,
        )

    @classmethod
    def trusted_success(cls, invocation: ToolInvocation, content: Any,
                        images: tuple[ImageContent, ...] = ()) -> ToolResult:
        """A success whose ``content`` is already known to be a JSON value: exactly what
        ``model_construct`` makes of the same fields (nothing validated), built without its
        per-field Python loop (a third of its cost, once per tool call)."""
        result = cls.__new__(cls)
        _set(result, "__dict__", {"invocation_id": invocation.id, "tool_name": invocation.name,
                                  "status": "success", "content": content, "error": None,
                                  "images": images})
        _set(result, "__pydantic_fields_set__", set(_RESULT_FIELDS))
        _set(result, "__pydantic_extra__", None)
        _set(result, "__pydantic_private__", None)
        return result

    @classmethod
    def failure(
        cls,
        invocation: ToolInvocation,
        code: ErrorCode,
        message: str,
        *,
        recoverable: bool = True,
        suggestion: str | None = None,
    ) -> ToolResult:
        """The result of a call that failed, with what the LLM needs to fix it."""
        error = ToolErrorInfo(
            code=code, message=message, recoverable=recoverable, suggestion=suggestion
        )
        return cls(
            invocation_id=invocation.id, tool_name=invocation.name, status="failure", error=error
        )

    @classmethod
    def denied(cls, invocation: ToolInvocation, reason: str) -> ToolResult:
        """A person refused the call (``reason`` says why); the LLM must not retry it as is."""
        return cls.failure(invocation, ErrorCode.DENIED, f"denied: {reason}",
                           suggestion="do not retry this call unchanged; choose another approach",
                           recoverable=False)

    @classmethod
    def interrupted(cls, invocation: ToolInvocation) -> ToolResult:
        """The call was running when its agent's process stopped: whether it had its effect
        is unknown."""
        return cls.failure(invocation, ErrorCode.INTERRUPTED,
                           "the call was running when the agent's process stopped; whether it "
                           "finished is unknown",
                           suggestion="check whether its effect happened before calling it again")


_set = object.__setattr__
_RESULT_FIELDS = tuple(ToolResult.model_fields)


def _not_json(value: Any, depth: int = 0) -> str:
    """What keeps ``value`` from being a JSON value ('' if nothing does)."""
    if value is None or isinstance(value, str | bool | int | float):
        return ""
    if depth > 200:
        return "nested more than 200 levels deep"
    if isinstance(value, list | tuple):
        for item in value:
            problem = _not_json(item, depth + 1)
            if problem:
                return problem
        return ""
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                return f"object key {key!r} is not a string"
            problem = _not_json(item, depth + 1)
            if problem:
                return problem
        return ""
    return f"a {type(value).__name__} is not a JSON value"

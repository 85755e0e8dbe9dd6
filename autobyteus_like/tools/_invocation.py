"""The call and result types every layer above the tools shares."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from autobyteus_like.errors import ErrorCode
from autobyteus_like.tools._image_content import ImageContent

__all__ = ["MAY_HAVE_RUN", "NEVER_STARTED", "ErrorCode", "ParseErrorInfo", "ToolErrorInfo",
           "ToolInvocation", "ToolResult"]

NEVER_STARTED = "the call never started"
"""A call stopped (or its run stopped) while it waited: its body did not run."""

MAY_HAVE_RUN = "the call may have run"
"""A call cut while its body ran: whether its side effect happened is unknown."""


DENIED_PREFIX = "denied: "
"""How a denied call's result message begins (the reason follows)."""

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
    started: bool = True
    """Whether the tool's body started: False for a call refused, denied, cut off by a limit
    or stopped before it ran (its side effect cannot have happened)."""

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
                                  "images": images, "started": True})
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
        started: bool = True,
    ) -> ToolResult:
        """The result of a call that failed, with what the LLM needs to fix it (``started``:
        whether the tool's body had started)."""
        error = ToolErrorInfo(
            code=code, message=message, recoverable=recoverable, suggestion=suggestion
        )
        return cls(
            invocation_id=invocation.id, tool_name=invocation.name, status="failure", error=error,
            started=started,
        )

    @classmethod
    def denied(cls, invocation: ToolInvocation, reason: str) -> ToolResult:
        """A person refused the call (``reason`` says why); the LLM must not retry it as is."""
        return cls.failure(invocation, ErrorCode.DENIED, f"{DENIED_PREFIX}{reason}",
                           suggestion="do not retry this call unchanged; choose another approach",
                           recoverable=False, started=False)

    @classmethod
    def interrupted(cls, invocation: ToolInvocation, *, started: bool = True) -> ToolResult:
        """The call was cut by a stop: while its body ran (``started``: it may have run,
        whether it had its effect is unknown), or while it waited (it never started)."""
        if not started:
            return cls.failure(invocation, ErrorCode.INTERRUPTED,
                               f"{NEVER_STARTED}: it was stopped while it waited (for a "
                               "decision or its turn), so it had no effect",
                               suggestion="call it again if it is still needed", started=False)
        return cls.failure(invocation, ErrorCode.INTERRUPTED,
                           f"{MAY_HAVE_RUN}: it was running when the agent's process stopped, "
                           "and whether it finished (and had its effect) is unknown",
                           suggestion="check whether its effect happened before calling it again")


_set = object.__setattr__
_RESULT_FIELDS = tuple(name for name in ToolResult.model_fields if name != "started")
"""The fields a trusted success is given (``started`` keeps its default, as in
``model_construct``)."""


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

"""OutputSpec: what an agent's final answer must be, and the ``final_result`` tool that gives it.

The answer's type is taught as a tool, so every format teaches it in its own manifest (a weak
model answers in XML as well as in JSON) and native calling declares it like any tool. The
tool's arguments are the type's fields; a type that is not an object (a scalar, a list) is
wrapped as one argument, ``result``. Validation is the tool's: arguments that do not fit come
back to the model as INVALID_ARGS with pydantic's words, and a validator's ``ModelRetry`` as
the same, so the turn machine needs nothing new to send a wrong answer back.

The answer travels through the turn (events, sessions, teams) as JSON text; ``value`` turns it
back into the type at the caller.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Sequence
from typing import Any, get_type_hints

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, create_model
from typing_extensions import is_typeddict

from autobyteus_like.errors import ModelRetry, ToolArgumentError, ToolFailure
from autobyteus_like.tools._definition import ToolDefinition
from autobyteus_like.tools._invocation import ErrorCode

__all__ = ["FINAL_RESULT", "OUTPUT_CATEGORY", "OutputSpec", "OutputValidator"]

FINAL_RESULT = "final_result"
"""The tool the model calls with its final answer."""
OUTPUT_CATEGORY = "output"
"""The category of the ``final_result`` tool: it never waits for a person's approval."""
_WRAPPED = "result"

OutputValidator = Callable[[Any], Any]
"""``fn(value)``: raise ``ModelRetry("why")`` to send the answer back; return a value to
replace it, or None to keep it."""

_DESCRIPTION = (
    "Give your final answer. Call this once, when you are done, with the answer as its "
    "arguments; do not write the answer as plain text."
)


class OutputSpec:
    """The answer's type (a pydantic model, dataclass, TypedDict, ``list[...]``, a scalar) or
    its JSON schema, the validators it passes, and the tool that carries it."""

    def __init__(self, output_type: Any = None, *, schema: dict[str, Any] | None = None,
                 validators: Sequence[OutputValidator] = ()) -> None:
        if (output_type is None) == (schema is None):
            raise ValueError("give an output_type or an output_schema, not both")
        self.output_type = output_type
        self.schema = schema
        self.validators = tuple(validators)
        self.wrapped = False
        """Whether the answer is one argument, ``result`` (a type that is not an object)."""
        self._adapter: TypeAdapter[Any] | None = None
        if schema is not None:
            self.wrapped = schema.get("type") != "object"
            input_schema = ({"type": "object", "properties": {_WRAPPED: schema},
                             "required": [_WRAPPED]} if self.wrapped else schema)
            self.tool = ToolDefinition(name=FINAL_RESULT, description=_DESCRIPTION,
                                       arguments_model=None, input_schema=input_schema,
                                       function=self._finish, call_with_model=True,
                                       category=OUTPUT_CATEGORY, idempotent=True)
        else:
            self._adapter = TypeAdapter(output_type)
            self.tool = ToolDefinition(name=FINAL_RESULT, description=_DESCRIPTION,
                                       arguments_model=self._arguments_model(output_type),
                                       function=self._finish, call_with_model=True,
                                       category=OUTPUT_CATEGORY, idempotent=True)

    def _arguments_model(self, output_type: Any) -> type[BaseModel]:
        if isinstance(output_type, type) and issubclass(output_type, BaseModel):
            return output_type
        fields = _object_fields(output_type)
        if fields is None:
            self.wrapped = True
            fields = {_WRAPPED: (output_type, Field(...))}
        name = getattr(output_type, "__name__", "Output")
        model: type[BaseModel] = create_model(  # type: ignore[call-overload]
            f"{name}FinalResult", __config__=ConfigDict(extra="forbid"), **fields)
        return model

    def response_schema(self) -> dict[str, Any]:
        """The answer's JSON schema for a provider's structured output (an object: a type that
        is not one is wrapped as ``result``, as the tool's arguments are)."""
        return self.tool.inline_schema()

    # -- the tool ------------------------------------------------------------------------------

    def _finish(self, arguments: Any) -> Any:
        """The tool's body: the answer as a value, through the validators, as JSON."""
        data = arguments if isinstance(arguments, dict) else arguments.model_dump(
            exclude_unset=True)
        return self.accept(data[_WRAPPED] if self.wrapped else data)

    def accept(self, data: Any) -> Any:
        """The answer's JSON-ready content once it is validated as the type and has passed
        every validator; ``ToolFailure`` (INVALID_ARGS) saying what to fix otherwise."""
        if self._adapter is not None:
            try:
                value = self._adapter.validate_python(data)
            except ValidationError as exc:
                problems = "; ".join(
                    f"{'.'.join(map(str, error['loc'])) or 'answer'}: {error['msg']}"
                    for error in exc.errors(include_url=False))
                raise ToolFailure(ErrorCode.INVALID_ARGS, problems, suggestion=_AGAIN) from None
        else:
            value = data
        for validator in self.validators:
            try:
                replaced = validator(value)
            except ModelRetry as exc:
                raise ToolFailure(ErrorCode.INVALID_ARGS, f"the answer was not accepted: {exc}",
                                  suggestion=_AGAIN) from None
            if replaced is not None:
                value = replaced
        if self._adapter is not None:
            return self._adapter.dump_python(value, mode="json")
        return value

    # -- an answer written as text -----------------------------------------------------------

    def from_text(self, text: str) -> tuple[bool, Any]:
        """An answer the model wrote as text instead of calling the tool: (True, content) when
        it is JSON that fits (or plain text, for a text type), else (False, the problem)."""
        body = _unfenced(text)
        try:
            data: Any = json.loads(body)
        except ValueError:
            if not self.wrapped:
                return False, "the answer is not a JSON object"
            data = body  # a scalar answer written as plain text
        if self.wrapped and isinstance(data, dict) and set(data) == {_WRAPPED}:
            data = data[_WRAPPED]
        if not self.wrapped and not isinstance(data, dict):
            return False, "the answer is not a JSON object"
        try:
            if self._adapter is None:  # a JSON schema: checked as the tool's arguments are
                bound = self.tool.bind({_WRAPPED: data} if self.wrapped else data)
                data = bound[_WRAPPED] if self.wrapped else bound
            return True, self.accept(data)
        except ToolArgumentError as exc:
            return False, "; ".join(exc.problems)
        except ToolFailure as exc:
            return False, exc.message

    # -- the caller's side -----------------------------------------------------------------

    @staticmethod
    def answer(content: Any) -> str:
        """The answer as the turn carries it: JSON text."""
        return json.dumps(content, ensure_ascii=False)

    def value(self, answer: str) -> Any:
        """The turn's answer (JSON text) as the output type (the schema's JSON value)."""
        if self._adapter is None:
            return json.loads(answer)
        return self._adapter.validate_json(answer)


_AGAIN = f"call {FINAL_RESULT} again with a corrected answer"


def _object_fields(output_type: Any) -> dict[str, tuple[Any, Any]] | None:
    """A dataclass's or TypedDict's fields as pydantic field definitions (None: not one)."""
    if dataclasses.is_dataclass(output_type) and isinstance(output_type, type):
        hints = get_type_hints(output_type, include_extras=True)
        fields: dict[str, tuple[Any, Any]] = {}
        for field in dataclasses.fields(output_type):
            if field.default is not dataclasses.MISSING:
                fields[field.name] = (hints[field.name], Field(field.default))
            elif field.default_factory is not dataclasses.MISSING:
                fields[field.name] = (hints[field.name],
                                      Field(default_factory=field.default_factory))
            else:
                fields[field.name] = (hints[field.name], Field(...))
        return fields
    if is_typeddict(output_type):
        hints = get_type_hints(output_type)  # NotRequired[...] stripped
        required = getattr(output_type, "__required_keys__", frozenset(hints))
        return {name: (hint, Field(...) if name in required else Field(None))
                for name, hint in hints.items()}
    return None


def _unfenced(text: str) -> str:
    """The text without a Markdown code fence around it."""
    body = text.strip()
    if body.startswith("```") and body.endswith("```") and len(body) >= 6:
        body = body[3:-3]
        first, _, rest = body.partition("\n")
        body = rest if first.strip().isalpha() or not first.strip() else body
    return body.strip()

"""ToolDefinition: a tool's name, description, arguments (a pydantic model, or a JSON Schema
someone else wrote), metadata and callable."""

from __future__ import annotations

import asyncio
import copy
import inspect
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from pydantic import BaseModel, ValidationError

from autobyteus_like.errors import ErrorCode, ToolArgumentError, ToolDeclarationError, ToolFailure
from autobyteus_like.tools._json_schema import inline_refs, schema_type, strip_titles
from autobyteus_like.tools._lenient_arguments import lenient_model
from autobyteus_like.tools._schema_arguments import SchemaArguments

__all__ = ["ToolDefinition"]

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.\-]{0,127}$")


@dataclass(frozen=True, eq=False)
class ToolDefinition:
    """Everything the framework knows about one tool.

    The arguments are described once: by ``arguments_model`` (pydantic; the JSON Schema comes
    from it, never by hand), or, for tools defined elsewhere (an MCP server's), by
    ``input_schema``, a JSON Schema validated with ``jsonschema``; such a tool's function gets
    the validated arguments as one dict. A definition made by ``@tool`` stays callable like the
    function it wraps.
    """

    name: str
    description: str
    arguments_model: type[BaseModel] | None
    function: Callable[..., Any]
    requires_approval: bool = False
    timeout_s: float | None = None
    sequential: bool = False
    category: str = "custom"
    call_with_model: bool = False
    """Class-based tools receive the validated model; function tools receive keyword arguments."""
    dangerous: bool = False
    """Needs approval even when the agent runs tools automatically."""
    needs_network: bool = False
    """Refused (PERMISSION_DENIED) where the sandbox does not allow the network."""
    result_allowlist: tuple[str, ...] | None = None
    """Result fields that may appear in events, logs and the session log (None: all)."""
    masked_arguments: tuple[str, ...] = ()
    """Arguments whose values are masked in events, logs and the session log."""
    idempotent: bool = False
    """Safe to run twice: a call that was running when its process died runs again on resume
    (otherwise the LLM is told it was INTERRUPTED)."""
    context_parameter: str | None = None
    """The parameter that receives the ToolContext, if the function declares one."""
    input_schema: dict[str, Any] | None = None
    """The arguments' JSON Schema, for a tool without an ``arguments_model``."""
    call_soon: Callable[[Callable[[], None]], None] | None = None
    """For an async tool bound to an event loop of its own (an MCP session's): runs a callback
    on that loop soon, from any thread, or raises ``RuntimeError`` once the loop has stopped.
    The agent starts the call there directly, one thread hand-off fewer per call; without it
    (or when the loop has stopped), async tools run on the agent's tool loop."""
    retries: int | None = None
    """Invalid calls (arguments that do not fit, unreadable calls, no ``why``) of this tool the
    model may correct in one turn; one more ends the turn with an error (None: no limit but
    ``max_iterations``)."""
    max_result_chars: int | None = None
    """This tool's results are cut to this many characters (as text) with a note saying so;
    None: the agent's ``max_result_chars``."""
    resources: dict[str, Any] | None = None
    """Ray resources the body runs with, as a Ray task (``@tool(resources=...)``); None: it
    runs in the agent's own process."""

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not _NAME.match(self.name):
            raise ToolDeclarationError(
                f"invalid tool name {self.name!r}: use letters, digits, '_', '.' or '-', "
                "starting with a letter or '_', at most 128 characters"
            )
        if self.retries is not None and (type(self.retries) is not int or self.retries < 0):
            raise ToolDeclarationError(f"tool {self.name!r}: retries must be a whole number "
                                       f">= 0, got {self.retries!r}")
        if self.timeout_s is not None and self.timeout_s <= 0:
            raise ToolDeclarationError(f"tool {self.name!r}: timeout_s must be positive")
        if self.max_result_chars is not None and (
                isinstance(self.max_result_chars, bool) or not isinstance(
                    self.max_result_chars, int) or self.max_result_chars < 1):
            raise ToolDeclarationError(
                f"tool {self.name!r}: max_result_chars must be a positive whole number")
        model = self.arguments_model
        if model is None:
            if self.input_schema is None:
                raise ToolDeclarationError(
                    f"tool {self.name!r}: give an arguments_model or an input_schema")
            SchemaArguments(self.name, self.input_schema)  # checks its shape now
        elif not (isinstance(model, type) and issubclass(model, BaseModel)):
            raise ToolDeclarationError(
                f"tool {self.name!r}: arguments_model must be a pydantic model"
            )
        elif self.input_schema is not None:
            raise ToolDeclarationError(
                f"tool {self.name!r}: give an arguments_model or an input_schema, not both")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Call the underlying function directly, as if it were not a tool."""
        return self.function(*args, **kwargs)

    def __repr__(self) -> str:
        return f"ToolDefinition(name={self.name!r}, arguments={list(self.argument_names)})"

    # -- schema ------------------------------------------------------------------------------

    @cached_property
    def _schema(self) -> dict[str, Any]:
        if self.arguments_model is None:
            assert self.input_schema is not None
            return copy.deepcopy(self.input_schema)
        return strip_titles(self.arguments_model.model_json_schema())

    @cached_property
    def _inline_schema(self) -> dict[str, Any]:
        return inline_refs(self._schema)

    @cached_property
    def _validator(self) -> type[BaseModel]:
        assert self.arguments_model is not None
        return lenient_model(self.arguments_model, self._inline_schema.get("properties", {}))

    @cached_property
    def _schema_arguments(self) -> SchemaArguments:
        return SchemaArguments(self.name, self._inline_schema)

    def json_schema(self) -> dict[str, Any]:
        """The arguments' JSON Schema as pydantic makes it (``$defs`` and ``$ref`` kept)."""
        return copy.deepcopy(self._schema)

    def inline_schema(self) -> dict[str, Any]:
        """The same schema with every ``$ref`` inlined, for providers that reject references."""
        return copy.deepcopy(self._inline_schema)

    @property
    def shared_inline_schema(self) -> dict[str, Any]:
        """``inline_schema()`` without the copy, for readers on a hot path (parsers, request
        encoders): shared and cached, so it must not be modified."""
        return self._inline_schema

    @property
    def argument_schemas(self) -> dict[str, Any]:
        """Each argument's inlined schema, by name. Shared and cached: do not modify it."""
        properties: dict[str, Any] = self._inline_schema.get("properties", {})
        return properties

    @property
    def argument_names(self) -> tuple[str, ...]:
        """The declared argument names, in declaration order."""
        return tuple(self._inline_schema.get("properties", {}))

    def declares(self, argument: str) -> bool:
        """Whether the tool has an argument of that name."""
        return argument in self._inline_schema.get("properties", {})

    # -- validation --------------------------------------------------------------------------

    def bind(self, raw: Mapping[str, Any]) -> Any:
        """Validate raw arguments (into the arguments model, or a dict fitting the input
        schema), or raise ``ToolArgumentError`` listing every problem."""
        if not isinstance(raw, Mapping):
            raise ToolArgumentError(
                self.name, [f"arguments must be a JSON object, got {type(raw).__name__}"]
            )
        if self.arguments_model is None:
            return self._schema_arguments.bind(raw)
        properties: dict[str, Any] = self._inline_schema.get("properties", {})
        problems = [
            f"unknown argument {key!r} (this tool takes: {', '.join(properties) or 'no arguments'})"
            for key in raw if key not in properties
        ]
        known = {key: value for key, value in raw.items() if key in properties}
        try:  # model_validate without its keyword handling (half the cost of a small call)
            model = self._validator.__pydantic_validator__.validate_python(known)
        except ValidationError as exc:
            problems.extend(_describe(error, properties) for error in exc.errors(include_url=False))
            model = None
        if problems or model is None:
            raise ToolArgumentError(self.name, problems)
        return model

    def validate_arguments(self, raw: Mapping[str, Any]) -> dict[str, Any]:
        """Validate lax input (" 5 " -> 5, JSON text for lists, pydantic's lax mode) and return
        JSON-ready arguments.

        Raises ``ToolArgumentError`` listing every problem (missing, wrong type, unknown).
        """
        bound = self.bind(raw)
        if isinstance(bound, dict):
            return bound
        dumped: dict[str, Any] = bound.model_dump(mode="json")
        return dumped

    # -- execution ---------------------------------------------------------------------------

    @cached_property
    def is_async(self) -> bool:
        """Whether the callable is a coroutine function (asked once per call started)."""
        return inspect.iscoroutinefunction(self.function)

    def _invoke(self, arguments: Mapping[str, Any], context: Any = None) -> Any:
        return self.call_bound(self.bind(arguments), context)

    def call_bound(self, model: Any, context: Any = None) -> Any:
        """Call the tool with arguments already validated by ``bind`` (no second validation);
        an async tool returns its coroutine."""
        if self.call_with_model or isinstance(model, dict):
            if self.context_parameter is not None:
                return self.function(model, **{self.context_parameter: _context(context)})
            return self.function(model)
        values = {name: getattr(model, name) for name in type(model).__pydantic_fields__}
        if self.context_parameter is not None:
            values[self.context_parameter] = _context(context)
        return self.function(**values)

    async def arun(self, arguments: Mapping[str, Any], context: Any = None) -> Any:
        """Validate and run the tool, awaiting it if it is async; ``context`` is the
        ToolContext handed to tools that ask for one."""
        result = self._invoke(arguments, context)
        if inspect.isawaitable(result):
            result = await result
        return result

    def run(self, arguments: Mapping[str, Any], context: Any = None) -> Any:
        """Validate and run the tool from synchronous code (an async tool gets its own loop,
        and is cancelled at ``timeout_s``: a TIMEOUT ``ToolFailure``, as through an agent)."""
        result = self._invoke(arguments, context)
        if inspect.isawaitable(result):
            awaited = result
            timeout = self.timeout_s

            async def _await() -> Any:
                try:
                    return await asyncio.wait_for(awaited, timeout)
                except TimeoutError:
                    raise ToolFailure(ErrorCode.TIMEOUT,
                                      f"{self.name} did not finish within {timeout:g} s") from None

            result = asyncio.run(_await())
        return result


def _path(loc: tuple[int | str, ...]) -> str:
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _describe(error: Any, properties: dict[str, Any]) -> str:
    loc = tuple(error.get("loc", ()))
    path = _path(loc)
    if error.get("type") == "missing":
        expected = ""
        if len(loc) == 1 and loc[0] in properties:
            expected = f" ({schema_type(properties[str(loc[0])])})"
        return f"missing required argument {path!r}{expected}"
    shown = repr(error.get("input"))
    if len(shown) > 60:
        shown = shown[:57] + "..."
    where = f"argument {path!r}" if path else "arguments"
    return f"{where}: {error.get('msg', 'invalid value')} (got {shown})"


def _context(context: Any) -> Any:
    from autobyteus_like.tools._context import ToolContext

    return context if context is not None else ToolContext()

"""``@tool``: turns a typed function into a ToolDefinition."""

from __future__ import annotations

import dataclasses
import inspect
import typing
import warnings
from collections.abc import Callable
from typing import Any, overload

from pydantic import ConfigDict, Field, ValidationError, create_model

from autobyteus_like.errors import ToolDeclarationError
from autobyteus_like.tools._context import ToolContext
from autobyteus_like.tools._definition import ToolDefinition
from autobyteus_like.tools._docstring import parse_docstring
from autobyteus_like.tools._resources import MemberResources

__all__ = ["tool"]


@overload
def tool(function: Callable[..., Any], /) -> ToolDefinition: ...


@overload
def tool(
    *,
    name: str | None = None,
    description: str | None = None,
    requires_approval: bool = False,
    timeout_s: float | None = None,
    sequential: bool = False,
    category: str = "custom",
    dangerous: bool = False,
    needs_network: bool = False,
    result_allowlist: tuple[str, ...] | None = None,
    masked_arguments: tuple[str, ...] = (),
    idempotent: bool = False,
    resources: dict[str, Any] | None = None,
    retries: int | None = None,
    max_result_chars: int | None = None,
) -> Callable[[Callable[..., Any]], ToolDefinition]: ...


def tool(
    function: Callable[..., Any] | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    requires_approval: bool = False,
    timeout_s: float | None = None,
    sequential: bool = False,
    category: str = "custom",
    dangerous: bool = False,
    needs_network: bool = False,
    result_allowlist: tuple[str, ...] | None = None,
    masked_arguments: tuple[str, ...] = (),
    idempotent: bool = False,
    resources: dict[str, Any] | None = None,
    retries: int | None = None,
    max_result_chars: int | None = None,
) -> ToolDefinition | Callable[[Callable[..., Any]], ToolDefinition]:
    """Declare a tool from a typed function (sync or async).

    The name defaults to the function's, the description to its docstring, and each argument's
    description to its entry in the docstring's Google-style ``Args:`` section. A parameter
    typed ``ToolContext`` is filled by the runtime and is not part of the schema.
    ``resources`` (``{"num_cpus", "num_gpus", "memory", "custom"}``) are only recorded (and
    checked): on a team whose runtime is Ray, the Ray backend runs the body as a Ray task with
    them, where the hardware is; elsewhere the body runs in the agent's process.
    ``retries``: how many invalid calls of it the model may correct in one turn before the
    turn ends with an error (instead of looping until ``max_iterations``).
    ``max_result_chars``: results longer than this (as text) are cut, with a note saying so
    (default: the agent's ``max_result_chars``, 100,000).
    """

    def build(func: Callable[..., Any], _caller: int = 2) -> ToolDefinition:
        tool_name = name or func.__name__
        model, context_parameter = _arguments_model(func, tool_name)
        told = description if description is not None else _description(func)
        definition = ToolDefinition(
            name=tool_name,
            description=told,
            arguments_model=model,
            function=func,
            requires_approval=requires_approval,
            timeout_s=timeout_s,
            sequential=sequential,
            category=category,
            dangerous=dangerous,
            needs_network=needs_network,
            result_allowlist=result_allowlist,
            masked_arguments=masked_arguments,
            idempotent=idempotent,
            context_parameter=context_parameter,
            retries=retries,
            max_result_chars=max_result_chars,
        )
        if not told.strip():
            warnings.warn(f"tool {tool_name!r} has no description (no docstring and no "
                          "description=...): the LLM is told only its name and arguments",
                          UserWarning, stacklevel=_caller)
        return definition if resources is None else _with_resources(definition, resources)

    if function is not None:
        return build(function, 3)  # the warning points at the user's ``@tool`` line
    return build


def _with_resources(definition: ToolDefinition, resources: dict[str, Any]) -> ToolDefinition:
    """The definition with its Ray resources recorded (as Ray's ``.options()`` takes them)."""
    try:
        needs = MemberResources.model_validate(resources)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'resources'}: {e['msg']}"
                             for e in exc.errors())
        raise ToolDeclarationError(f"tool {definition.name!r}: resources: {problems} (use "
                                   "num_cpus, num_gpus, memory, custom)") from None
    return dataclasses.replace(definition, resources=needs.ray_options())


def _description(func: Callable[..., Any]) -> str:
    return parse_docstring(func.__doc__).description


def _arguments_model(func: Callable[..., Any], tool_name: str) -> tuple[type[Any], str | None]:
    if not callable(func):
        raise ToolDeclarationError(f"@tool needs a function, got {type(func).__name__}")
    hints = _type_hints(func, tool_name)
    docs = parse_docstring(func.__doc__).arguments
    fields: dict[str, Any] = {}
    context_parameter: str | None = None
    for param in inspect.signature(func).parameters.values():
        if hints.get(param.name) is ToolContext:
            context_parameter = param.name
            continue
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            raise ToolDeclarationError(
                f"tool {tool_name!r}: *args/**kwargs ({param.name}) cannot be described to an LLM"
            )
        if param.name not in hints:
            raise ToolDeclarationError(
                f"tool {tool_name!r}: argument {param.name!r} needs a type hint"
            )
        default = ... if param.default is inspect.Parameter.empty else param.default
        if param.name in docs:
            fields[param.name] = (hints[param.name], Field(default, description=docs[param.name]))
        else:  # an explicit description=None would hide one given in Annotated[..., Field()]
            fields[param.name] = (hints[param.name], Field(default))
    model_name = "".join(part.capitalize() for part in tool_name.replace(".", "_").split("_"))
    model = create_model(
        f"{model_name or 'Tool'}Arguments",
        __config__=ConfigDict(extra="forbid"),
        **fields,
    )
    _complete(model, func, tool_name)
    return model, context_parameter


def _type_hints(func: Callable[..., Any], tool_name: str) -> dict[str, Any]:
    """The function's resolved hints; an annotation that cannot be resolved is named with its
    argument (``from __future__ import annotations`` leaves every one as text)."""
    try:
        return typing.get_type_hints(func, include_extras=True)
    except Exception as exc:  # unresolvable forward references and the like
        raw = getattr(func, "__annotations__", {})
        namespace = getattr(func, "__globals__", {})
        for argument, annotation in raw.items():
            try:
                typing.get_type_hints(_Probe(annotation), namespace, include_extras=True)
            except Exception as inner:
                raise ToolDeclarationError(
                    f"tool {tool_name!r}: argument {argument!r}: cannot resolve its type "
                    f"{annotation!r}: {inner}") from None
        raise ToolDeclarationError(f"tool {tool_name!r}: cannot read type hints: {exc}") from exc


class _Probe:
    """An object holding one annotation, for ``get_type_hints`` to resolve alone."""

    def __init__(self, annotation: Any) -> None:
        self.__annotations__ = {"value": annotation}


def _complete(model: type[Any], func: Callable[..., Any], tool_name: str) -> None:
    """Finish models whose own annotations were left as text: a pydantic model declared in a
    file run without being registered as a module (``--tools FILE.py``) under ``from
    __future__ import annotations`` resolves its fields against the tool's module."""
    if model.__pydantic_complete__:
        return
    namespace = dict(getattr(func, "__globals__", {}))
    seen: set[type[Any]] = set()

    def finish(current: type[Any]) -> None:  # the innermost models first
        seen.add(current)
        for field_info in current.model_fields.values():
            for nested in _models_in(field_info.annotation):
                if nested not in seen and not nested.__pydantic_complete__:
                    finish(nested)
        _rebuild(current, namespace, tool_name)

    finish(model)


def _rebuild(model: type[Any], namespace: dict[str, Any], tool_name: str) -> None:
    try:
        model.model_rebuild(_types_namespace=namespace)
    except Exception as exc:
        raise ToolDeclarationError(f"tool {tool_name!r}: cannot resolve the types of "
                                   f"{model.__name__}: {exc}".splitlines()[0]) from None


def _models_in(annotation: Any) -> list[type[Any]]:
    """Every pydantic model an annotation names (inside lists, unions, ``Annotated``)."""
    from pydantic import BaseModel

    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    found: list[type[Any]] = []
    for argument in typing.get_args(annotation):
        found.extend(_models_in(argument))
    return found

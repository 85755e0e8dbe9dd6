"""``typing.TypedDict`` as pydantic takes it on every supported Python: before 3.12 pydantic
refuses one (it wants ``typing_extensions.TypedDict``), so such a type, and those nested in its
fields, lists, dicts and unions, is rebuilt as a ``typing_extensions.TypedDict`` with the same
name, keys and required keys. A value is a plain dict either way."""

from __future__ import annotations

import functools
import operator
import sys
import types
import typing
from typing import Any, NotRequired, Required, get_args, get_origin, get_type_hints

import typing_extensions
from typing_extensions import is_typeddict

__all__ = ["pydantic_ready"]


def pydantic_ready(annotation: Any) -> Any:
    """``annotation`` with every ``typing.TypedDict`` in it made one pydantic takes."""
    if sys.version_info >= (3, 12):
        return annotation
    return _ready(annotation, {})


def _ready(annotation: Any, done: dict[int, Any]) -> Any:
    if is_typeddict(annotation):
        return _rebuilt(annotation, done)
    args = get_args(annotation)
    if not args:
        return annotation
    new = tuple(_ready(arg, done) if not isinstance(arg, list) else
                [_ready(item, done) for item in arg] for arg in args)
    if all(a is b for a, b in zip(new, args, strict=True)):
        return annotation
    origin = get_origin(annotation)
    if origin is types.UnionType:
        return functools.reduce(operator.or_, new)
    if origin is typing.Union:
        return typing.Union[new]  # noqa: UP007 (rebuilding a Union as it was written)
    try:
        return annotation.copy_with(new)  # typing's generic aliases (List[X], Annotated...)
    except AttributeError:
        return origin[new]  # list[X], dict[K, V], ...


def _rebuilt(typed_dict: Any, done: dict[int, Any]) -> Any:
    if type(typed_dict).__module__ != "typing":  # typing_extensions' own: taken as it is
        return typed_dict
    if id(typed_dict) in done:
        return done[id(typed_dict)]
    # read with the marks: a class written under `from __future__ import annotations` does
    # not see its own NotRequired before 3.12 (its __required_keys__ then lists every key)
    hints = get_type_hints(typed_dict, include_extras=True)
    required_keys = getattr(typed_dict, "__required_keys__", frozenset(hints))
    fields = {}
    for name, hint in hints.items():
        mark = get_origin(hint)
        if mark is Required or mark is NotRequired:
            required, hint = mark is Required, get_args(hint)[0]
        else:
            required = name in required_keys
        fields[name] = (Required if required else NotRequired)[_ready(hint, done)]
    rebuilt = typing_extensions.TypedDict(typed_dict.__name__, fields)  # type: ignore[misc]
    rebuilt.__module__ = typed_dict.__module__
    rebuilt.__doc__ = typed_dict.__doc__
    done[id(typed_dict)] = rebuilt
    return rebuilt

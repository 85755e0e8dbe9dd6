"""``fast_frozen``: a frozen, slotted dataclass with a cheaper ``__init__``, nothing else changed.

A turn builds a few dozen immutable values (messages, requests, chunks, events). The
``__init__`` that ``@dataclass(frozen=True)`` writes sets each field with
``object.__setattr__`` (the class's own ``__setattr__`` refuses), which on CPython 3.11 costs
about 1,300 machine instructions a field against about 70 for an ordinary attribute: a
13-field event costs as much as a small parser. ``fast_frozen`` replaces only ``__init__``;
the fields, equality, hashing, repr, pickling, ``dataclasses.replace`` and the refusal to
change a field are what ``@dataclass`` made. The new ``__init__`` has the same parameters,
defaults and error messages, and sets the same slots in the same order, the cheap way:

- with four fields or more, the object is a *twin* while they are set: a plain slotted class
  with the same base and the same slots (so the same memory layout, which CPython checks),
  whose fields are ordinary attribute stores; then the object becomes the frozen class again
  (``__class__`` assignment). The two class changes cost about as much as three frozen sets.
- with fewer, each slot is set through its own slot descriptor (half of ``object.__setattr__``,
  with no fixed cost).

An instance of a subclass that does not apply ``fast_frozen`` itself is built by the
dataclass's own ``__init__`` (kept as ``__init__.__wrapped__``).

``builder(cls)`` is a function with the same parameters that builds the same value without
calling the class: a class call with keywords packs them into a dict and back out
(``type.__call__``), about 2,000 machine instructions for a dozen keywords, more than setting
the fields. For values built on every turn.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable
from types import MemberDescriptorType
from typing import Any, ParamSpec, TypeVar

__all__ = ["builder", "fast_frozen"]

_T = TypeVar("_T")
_P = ParamSpec("_P")

TWIN_FROM = 4
"""From this many fields set, the twin is cheaper than slot descriptors (measured)."""

_SET_CLASS = object.__dict__["__class__"].__set__


class _Factory:
    """The default of a parameter whose field has a ``default_factory`` (dataclass's own
    ``<factory>``): the factory is called when the caller gave nothing."""

    def __repr__(self) -> str:
        return "<factory>"


_FACTORY = _Factory()


def fast_frozen(cls: type[_T]) -> type[_T]:
    """Give ``cls``, a ``@dataclass(frozen=True, slots=True)`` class, the cheap ``__init__``
    (apply it above the ``@dataclass`` line)."""
    params = getattr(cls, "__dataclass_params__", None)
    if (params is None or "__dataclass_params__" not in cls.__dict__ or not params.frozen
            or not params.init or "__slots__" not in cls.__dict__):
        raise TypeError(f"fast_frozen needs a @dataclass(frozen=True, slots=True) class with "
                        f"its own __init__, not {cls.__qualname__}")
    original = cls.__dict__["__init__"]
    fields = dataclasses.fields(cls)  # type: ignore[arg-type]
    expected = [f.name for f in fields if f.init]
    if list(inspect.signature(original).parameters)[1:] != expected:
        raise TypeError(f"fast_frozen: {cls.__qualname__} has init-only variables; "
                        "keep the dataclass's own __init__")
    twin = _twin(cls)
    assigned = [f for f in fields if f.init or f.default is not dataclasses.MISSING
                or f.default_factory is not dataclasses.MISSING]
    use_twin = twin is not None and len(assigned) >= TWIN_FROM
    factory = next((parameter.default for parameter
                    in inspect.signature(original).parameters.values()
                    if repr(parameter.default) == "<factory>"), _FACTORY)
    """The dataclass's own stand-in for a factory default, so the signatures are equal."""
    namespace: dict[str, Any] = {"_C": cls, "_T": twin, "_type": type, "_init": original,
                                 "_set_class": _SET_CLASS, "_FACTORY": factory,
                                 "_new": object.__new__}
    parameters: list[str] = []
    keywords: list[str] = []
    for f in fields:
        if not f.init:
            continue
        if f.default_factory is not dataclasses.MISSING:
            parameter = f"{f.name}=_FACTORY"
        elif f.default is not dataclasses.MISSING:
            namespace[f"_default_{f.name}"] = f.default
            parameter = f"{f.name}=_default_{f.name}"
        else:
            parameter = f.name
        (keywords if f.kw_only else parameters).append(parameter)
    signature = ", ".join(["self", *parameters, *(["*", *keywords] if keywords else [])])
    passed = ", ".join(f"{name}={name}" for name in expected)
    lines = [f"def __init__({signature}):",
             "    if _type(self) is not _C:",
             f"        return _init(self, {passed})"]
    body: list[str] = []
    if use_twin:
        body.append("    _set_class(self, _T)")
    for f in assigned:
        value = _value(f, namespace)
        if use_twin:
            body.append(f"    self.{f.name} = {value}")
        else:
            namespace[f"_set_{f.name}"] = _descriptor(cls, f.name).__set__
            body.append(f"    _set_{f.name}(self, {value})")
    if use_twin:
        body.append("    _set_class(self, _C)")
    if hasattr(cls, "__post_init__"):
        body.append("    self.__post_init__()")
    lines += body or ["    pass"]
    # the builder makes a twin straight away (one class change fewer)
    lines += [f"def _build({signature.removeprefix('self').removeprefix(', ')}):",
              f"    self = _new({'_T' if use_twin else '_C'})", *body[use_twin:],
              "    return self"]
    exec("\n".join(lines), namespace)  # the source is made of field names only
    build = namespace["_build"]
    build.__qualname__ = f"builder({cls.__qualname__})"
    build.__module__ = cls.__module__
    type.__setattr__(cls, _BUILDER, build)
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    init.__annotations__ = dict(original.__annotations__)
    init.__doc__ = original.__doc__
    init.__wrapped__ = original
    type.__setattr__(cls, "__init__", init)
    return cls


_BUILDER = "__fast_frozen_builder__"
"""The class attribute holding a ``fast_frozen`` class's builder."""


def builder(cls: Callable[_P, _T]) -> Callable[_P, _T]:
    """A function that builds a ``fast_frozen`` class's values exactly as calling the class
    does (same parameters, defaults and checks), only cheaper."""
    build = vars(cls).get(_BUILDER) if isinstance(cls, type) else None
    if build is None:  # (a subclass's would be inherited: only the class's own counts)
        raise TypeError(f"builder: {getattr(cls, '__qualname__', cls)!r} is not a "
                        "fast_frozen class")
    return build  # type: ignore[no-any-return]


def _value(f: dataclasses.Field[Any], namespace: dict[str, Any]) -> str:
    """The expression a field is set to, as dataclass's own ``__init__`` computes it."""
    if f.default_factory is not dataclasses.MISSING:
        namespace[f"_factory_{f.name}"] = f.default_factory
        if f.init:
            return f"_factory_{f.name}() if {f.name} is _FACTORY else {f.name}"
        return f"_factory_{f.name}()"
    if f.init:
        return f.name
    namespace[f"_default_{f.name}"] = f.default
    return f"_default_{f.name}"


def _descriptor(cls: type, name: str) -> MemberDescriptorType:
    for klass in cls.__mro__:
        found = klass.__dict__.get(name)
        if isinstance(found, MemberDescriptorType):
            return found
    raise TypeError(f"fast_frozen: {cls.__qualname__}.{name} is not a slot")


def _twin(cls: type) -> type | None:
    """A mutable class of the same layout as ``cls`` (same base, same slots), or None when
    CPython would not let an object change between the two."""
    # both of object's own (a frozen base's __delattr__ left in place would make every store
    # go through the generic slot lookup, about three times the cost of a plain store)
    namespace = {"__slots__": cls.__dict__["__slots__"], "__setattr__": object.__setattr__,
                 "__delattr__": object.__delattr__,
                 "__qualname__": cls.__qualname__, "__module__": cls.__module__}
    base: type = cls.__base__ or object
    try:
        twin = type(cls.__name__, (base,), namespace)
        probe: object = object.__new__(cls)
        _SET_CLASS(probe, twin)
        _SET_CLASS(probe, cls)
    except TypeError:
        return None
    return twin

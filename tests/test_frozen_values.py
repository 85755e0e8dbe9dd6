"""fast_frozen changes only how a frozen dataclass is built: every value class of the package
that uses it is built equal to what the dataclass's own ``__init__`` builds, and stays as
immutable, hashable, printable and picklable (Ray pickles events and messages) as before."""

from __future__ import annotations

import copy
import dataclasses
import importlib
import inspect
import pickle
from dataclasses import dataclass, field
from typing import Any

import pytest

from autobyteus_like._frozen_values import TWIN_FROM, builder, fast_frozen

MODULES = ["autobyteus_like.events", "autobyteus_like.llm._messages",
           "autobyteus_like.parsers._parse_events", "autobyteus_like.parsers._call_shapes",
           "autobyteus_like.parsers._json_scanner"]


def _fast_classes() -> list[type]:
    found = []
    for name in MODULES:
        for value in vars(importlib.import_module(name)).values():
            init = getattr(value, "__init__", None)
            if (isinstance(value, type) and value.__module__ == name
                    and hasattr(init, "__wrapped__") and "__init__" in value.__dict__):
                found.append(value)
    return found


FAST = _fast_classes()


def test_the_turns_value_classes_use_it() -> None:
    names = {cls.__name__ for cls in FAST}
    assert {"Message", "LLMRequest", "LLMChunk", "LLMResponseCompleted", "UserMessageReceived",
            "ToolResultReceived", "TextDelta", "CallSpec", "JsonValue"} <= names


def _values(cls: type, salt: str) -> dict[str, Any]:
    """A value for every init field, none of them the default (hashable ones)."""
    return {f.name: (f"{f.name}-{salt}",) for f in dataclasses.fields(cls) if f.init}


def _slow(cls: type, values: dict[str, Any]) -> Any:
    """What the dataclass's own __init__ builds from the same values."""
    made: Any = object.__new__(cls)
    _dataclass_init(cls)(made, **values)
    return made


def _dataclass_init(cls: type) -> Any:
    return cls.__dict__["__init__"].__wrapped__


def _state(obj: Any) -> list[tuple[str, Any]]:
    return [(f.name, getattr(obj, f.name, "<unset>")) for f in dataclasses.fields(obj)]


@pytest.mark.parametrize("cls", FAST, ids=lambda cls: cls.__name__)
def test_a_fast_built_value_is_the_dataclass_built_one(cls: type) -> None:
    values = _values(cls, "a")
    fast: Any = cls(**values)
    slow = _slow(cls, values)
    assert fast.__class__ is cls  # (not type(): mypy would narrow fast to object)
    assert _state(fast) == _state(slow)
    assert fast == slow and (fast != slow) is False
    other = _values(cls, "b")  # a TokenUsage reads both as zero counts: equal on both paths
    assert (fast == cls(**other)) == (slow == _slow(cls, other))
    assert repr(fast) == repr(slow)
    if cls.__hash__ is not None:
        assert hash(fast) == hash(slow)
    copied = pickle.loads(pickle.dumps(fast))
    assert type(copied) is cls and copied == fast and _state(copied) == _state(fast)
    assert copy.copy(fast) == fast and copy.deepcopy(fast) == fast
    first = dataclasses.fields(cls)[0].name
    replaced = dataclasses.replace(fast, **{first: ("other",)})
    assert type(replaced) is cls
    assert _state(replaced) == _state(dataclasses.replace(slow, **{first: ("other",)}))
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(fast, first, ("changed",))
    with pytest.raises(dataclasses.FrozenInstanceError):
        delattr(fast, first)
    with pytest.raises((AttributeError, TypeError)):
        fast.not_a_field = 1
    slow_init = _dataclass_init(cls)
    assert inspect.signature(cls.__init__, follow_wrapped=False) == inspect.signature(slow_init)


@pytest.mark.parametrize("cls", FAST, ids=lambda cls: cls.__name__)
def test_defaults_and_bad_calls_behave_as_the_dataclass(cls: type) -> None:
    required = {f.name: ("x",) for f in dataclasses.fields(cls)
                if f.init and f.default is dataclasses.MISSING
                and f.default_factory is dataclasses.MISSING}
    assert _state(cls(**required)) == _state(_slow(cls, required))

    def error(build: Any) -> str:
        with pytest.raises(TypeError) as caught:
            build()
        return str(caught.value)

    slow_init = _dataclass_init(cls)
    assert error(lambda: cls(**required, unknown=1)) == error(
        lambda: slow_init(object.__new__(cls), **required, unknown=1))
    if required:
        assert error(lambda: cls()) == error(lambda: slow_init(object.__new__(cls)))


@fast_frozen
@dataclass(frozen=True, slots=True, kw_only=True)
class _Base:
    agent: str


@fast_frozen
@dataclass(frozen=True, slots=True, kw_only=True)
class _Many(_Base):
    a: int
    b: int = 2
    items: list[int] = field(default_factory=list)
    seen: list[str] = field(default_factory=list, init=False)
    total: int = field(default=0, init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "total", self.a + self.b)
        self.seen.append(type(self).__name__)  # runs on the frozen class, not the twin


@fast_frozen
@dataclass(frozen=True, slots=True)
class _Few:
    x: int
    y: tuple[int, ...] = ()


class _Plain(_Many):  # a subclass that does not apply fast_frozen itself
    __slots__ = ("extra",)


def test_factories_init_false_fields_and_post_init() -> None:
    assert len(dataclasses.fields(_Many)) >= TWIN_FROM
    one, two = _Many(agent="a", a=1), _Many(agent="a", a=1)
    assert one.items == [] and one.items is not two.items  # a fresh list each time
    assert one.total == 3 and one.seen == ["_Many"]
    given = [7]
    assert _Many(agent="a", a=1, items=given).items is given
    assert one == two and hash(_Few(1)) == hash(_Few(1)) and _Few(1) != _Few(2)
    assert repr(_Few(1, (2,))) == "_Few(x=1, y=(2,))"
    with pytest.raises(dataclasses.FrozenInstanceError):
        one.a = 5  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        _Few(1).x = 2  # type: ignore[misc]


def test_a_subclass_without_it_is_built_by_the_dataclass_init() -> None:
    sub = _Plain(agent="a", a=1)
    assert type(sub) is _Plain and sub.total == 3 and sub.seen == ["_Plain"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        sub.a = 2  # type: ignore[misc]


def test_a_failing_post_init_leaves_no_half_built_value() -> None:
    with pytest.raises(TypeError):
        _Many(agent="a", a="1")  # type: ignore[arg-type]  # "1" + 2 fails in __post_init__
    assert type(_Many(agent="a", a=1)) is _Many


def test_only_frozen_slotted_dataclasses_are_accepted() -> None:
    @dataclass(frozen=True)
    class NoSlots:
        x: int

    @dataclass(slots=True)
    class NotFrozen:
        x: int

    @dataclass(frozen=True, slots=True)
    class WithInitVar:
        x: int
        y: dataclasses.InitVar[int] = 0

    for cls in (NoSlots, NotFrozen, WithInitVar, int):
        with pytest.raises(TypeError, match="fast_frozen"):
            fast_frozen(cls)


@pytest.mark.parametrize("cls", FAST, ids=lambda cls: cls.__name__)
def test_a_builder_builds_what_calling_the_class_builds(cls: type) -> None:
    values = _values(cls, "a")
    built: Any = builder(cls)(**values)
    made: Any = cls(**values)
    assert built.__class__ is cls
    assert _state(built) == _state(made) and built == made and repr(built) == repr(made)
    first = dataclasses.fields(cls)[0].name
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(built, first, "changed")
    copied = pickle.loads(pickle.dumps(built))
    assert type(copied) is cls and copied == made


def test_a_builder_takes_the_same_parameters_and_defaults() -> None:
    from autobyteus_like.events import LLMResponseCompleted
    from autobyteus_like.llm._messages import Message, TokenUsage

    assert builder(Message)("user", "hi") == Message("user", "hi")
    assert builder(TokenUsage)(-1, True) == TokenUsage(-1, True)  # __post_init__ runs too
    assert (builder(LLMResponseCompleted)(agent="a", request_no=2)
            == LLMResponseCompleted(agent="a", request_no=2))
    with pytest.raises(TypeError):
        builder(LLMResponseCompleted)("a", 2)  # type: ignore[misc]  # keywords only
    with pytest.raises(TypeError):
        builder(Message)("user")  # type: ignore[call-arg]


def test_only_a_fast_frozen_class_has_a_builder() -> None:
    @fast_frozen
    @dataclass(frozen=True, slots=True)
    class Base:
        a: int

    @dataclass(frozen=True, slots=True)
    class Sub(Base):
        b: int = 0

    assert builder(Base)(1) == Base(1)
    for not_fast in (Sub, int, len):
        with pytest.raises(TypeError, match="not a fast_frozen class"):
            builder(not_fast)

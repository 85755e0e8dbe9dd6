"""A suite of tool-calling tasks: the tools (import paths) and, per task, the prompt, the calls
it expects (each argument matched exactly, by type, by a regular expression, or ``any``) and
the answer it expects. Loaded from YAML: the built-in suite ships as package data
(``builtin_suite.yaml``), a user's is a file of their own."""

from __future__ import annotations

import importlib
import re
import sys
from collections.abc import Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from autobyteus_like.errors import ConfigError

__all__ = ["BUILTIN", "CallExpectation", "EvalSuite", "EvalTask", "load_suite", "matches"]

BUILTIN = "builtin"
"""The name of the suite shipped with the package."""

_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,), "integer": (int,), "number": (int, float), "boolean": (bool,),
    "array": (list,), "object": (dict,), "null": (type(None),)}
_MATCHER_KEYS = frozenset({"exact", "type", "regex", "any"})


def matches(expected: Any, actual: Any) -> bool:
    """Whether ``actual`` fits ``expected``: ``"any"`` or ``{any: true}``; ``{exact: v}``;
    ``{type: string|integer|number|boolean|array|object|null}``; ``{regex: PATTERN}``
    (searched in the value, as text); a mapping of such per key (every key given must match,
    others are free); a list matched item by item; anything else: equal (1 equals 1.0)."""
    if expected == "any":
        return True
    if isinstance(expected, Mapping) and len(expected) == 1 and set(expected) <= _MATCHER_KEYS:
        [(kind, value)] = expected.items()
        if kind == "any":
            return bool(value)
        if kind == "exact":
            return _equal(value, actual)
        if kind == "type":
            found = _TYPES.get(str(value), ())
            return isinstance(actual, found) and not (
                isinstance(actual, bool) and bool not in found)
        text = actual if isinstance(actual, str) else yaml.safe_dump(actual).strip()
        return re.search(str(value), text) is not None
    if isinstance(expected, Mapping):
        return isinstance(actual, Mapping) and all(
            key in actual and matches(value, actual[key]) for key, value in expected.items())
    if isinstance(expected, list):
        return isinstance(actual, list) and len(expected) == len(actual) and all(
            matches(e, a) for e, a in zip(expected, actual, strict=True))
    return _equal(expected, actual)


def _equal(expected: Any, actual: Any) -> bool:
    if isinstance(expected, bool) or isinstance(actual, bool):
        return expected is actual
    return bool(expected == actual)


class CallExpectation(BaseModel):
    """One call a task expects: the tool's name and matchers for its arguments."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    tool: str
    args: dict[str, Any] = Field(default_factory=dict)

    def fits(self, name: str, arguments: Mapping[str, Any]) -> bool:
        """Whether a call of ``name`` with ``arguments`` is this one."""
        return name == self.tool and matches(self.args, dict(arguments))


class EvalTask(BaseModel):
    """One task: a user's message, the calls it needs (none: answer without a tool) and the
    answer expected (a matcher, usually ``{regex: ...}``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(pattern=r"^[A-Za-z0-9_.\-]+$")
    covers: str = ""
    """What the task checks (one call, nested objects, a retry ...)."""
    prompt: str = Field(min_length=1)
    calls: list[CallExpectation] = Field(default_factory=list)
    answer: Any = None
    extra_ok: bool = False
    """Further successful calls are not counted against the task."""
    failures_ok: bool = False
    """Calls that fail (and are retried) are expected on the way."""


class EvalSuite(BaseModel):
    """The tools and the tasks."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = "suite"
    system_prompt: str = ("You are a helpful assistant. Use the tools when a task needs them; "
                          "when it does not, answer directly.\n\n{{tools}}")
    tools: list[str] = Field(min_length=1)
    """Import paths, ``module:attribute`` (a tool, or a list of tools)."""
    tasks: list[EvalTask] = Field(min_length=1)

    @field_validator("tasks")
    @classmethod
    def _unique_ids(cls, tasks: list[EvalTask]) -> list[EvalTask]:
        ids = [task.id for task in tasks]
        twice = sorted({i for i in ids if ids.count(i) > 1})
        if twice:
            raise ValueError(f"task ids must be unique: {', '.join(twice)}")
        return tasks

    def tool_objects(self, source: str) -> list[Any]:
        """The suite's tools, imported (``ConfigError`` naming a path that does not load);
        a file path's folder is searched first (``module:NAME`` beside the suite)."""
        found: list[Any] = []
        folder = str(Path(source).resolve().parent) if source != BUILTIN else None
        for path in self.tools:
            module_name, _, attribute = path.partition(":")
            try:
                if folder is not None and folder not in sys.path:
                    sys.path.insert(0, folder)
                module = importlib.import_module(module_name)
                value = getattr(module, attribute) if attribute else None
            except (ImportError, AttributeError) as exc:
                raise ConfigError(source, [f"tools: {path!r} does not load: {exc}"]) from None
            if value is None:
                raise ConfigError(source, [f"tools: {path!r}: name the tools as module:NAME"])
            found.extend(value if isinstance(value, Sequence) else [value])
        return found

    def only(self, task_ids: Sequence[str]) -> EvalSuite:
        """The suite with these tasks only (``ConfigError`` naming an unknown one)."""
        known = {task.id for task in self.tasks}
        unknown = [i for i in task_ids if i not in known]
        if unknown:
            raise ConfigError(self.name, [f"no task {i!r} (tasks: {', '.join(sorted(known))})"
                                          for i in unknown])
        return self.model_copy(update={"tasks": [t for t in self.tasks if t.id in task_ids]})


def load_suite(source: str | Path = BUILTIN) -> EvalSuite:
    """The built-in suite, or a user's YAML file (``ConfigError`` saying what is wrong)."""
    name = str(source)
    try:
        if name == BUILTIN:
            text = resources.files("autobyteus_like.evals").joinpath(
                "builtin_suite.yaml").read_text(encoding="utf-8")
        else:
            text = Path(name).read_text(encoding="utf-8")
        data = yaml.safe_load(text)
    except OSError as exc:
        raise ConfigError(name, [f"cannot read the suite: {exc.strerror or exc}"]) from None
    except yaml.YAMLError as exc:
        raise ConfigError(name, [f"not YAML: {exc}"]) from None
    try:
        return EvalSuite.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(name, [
            f"{'.'.join(str(p) for p in error['loc'])}: {error['msg']}"
            for error in exc.errors()]) from None

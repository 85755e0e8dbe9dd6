"""``--tools`` on the command line: tools from a Python file or module the user names.

``FILE.py:NAME`` or ``module:NAME``, where NAME is one tool, a list of tools, a ToolRegistry or a
function returning one of those. A file is loaded as Python imports a module (registered in
``sys.modules`` while it runs, so postponed annotations and pydantic models resolve); a module
is looked for in the current folder first, as ``python -m`` does. This runs the code the user
names, never code from a config; whatever that code does wrong (a syntax error, a failing
import, an exception, even ``sys.exit``) is one ``UsageError`` saying where, in the user's code.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import importlib.util
import os
import sys
import traceback
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from autobyteus_like.errors import UsageError
from autobyteus_like.tools._base import BaseTool
from autobyteus_like.tools._definition import ToolDefinition
from autobyteus_like.tools._registry import ToolRegistry

__all__ = ["load_tools"]

_PACKAGE = str(Path(__file__).resolve().parent.parent)  # the package, not only cli/


def load_tools(specs: Sequence[str] | str | None) -> ToolRegistry | None:
    """Every ``--tools`` source merged into one registry (a name given twice is an error)."""
    if not specs:
        return None
    merged = ToolRegistry()
    for spec in [specs] if isinstance(specs, str) else specs:
        for definition in _load_one(spec):
            try:
                merged.add(definition)
            except ValueError as exc:
                raise UsageError(f"--tools {spec!r}: {exc}") from None
    return merged


def _load_one(spec: str) -> ToolRegistry:
    location, _, name = spec.rpartition(":")
    if not location or not name:
        raise UsageError(f"--tools {spec!r}: expected FILE.py:NAME or module:NAME")
    try:
        module = _import(spec, location)
        if not hasattr(module, name):
            raise UsageError(f"--tools {spec!r}: {location} has no {name!r}")
        return _as_registry(spec, name, getattr(module, name))
    except UsageError:
        raise
    except SystemExit as exc:
        raise UsageError(f"--tools {spec!r}: loading it called sys.exit({exc.code!r})") from None
    except SyntaxError as exc:
        raise UsageError(f"--tools {spec!r}: {exc.filename}, line {exc.lineno}: "
                         f"{type(exc).__name__}: {exc.msg}") from None
    except Exception as exc:
        raise UsageError(f"--tools {spec!r}: {located(exc)}") from None


def _as_registry(spec: str, name: str, value: Any) -> ToolRegistry:
    """One tool, a list of them, a registry, or a factory returning one of those."""
    if _is_tool(value):
        return ToolRegistry([value])
    if callable(value) and not isinstance(value, ToolRegistry):
        value = value()
        if value is None:
            raise UsageError(f"--tools {spec!r}: {name}() returned None; return a "
                             "ToolRegistry or a list of tools")
        if _is_tool(value):
            return ToolRegistry([value])
    return ToolRegistry.of(value)


def _is_tool(value: Any) -> bool:
    return isinstance(value, ToolDefinition | BaseTool) or (
        isinstance(value, type) and issubclass(value, BaseTool))


def _import(spec: str, location: str) -> ModuleType:
    if not location.endswith(".py"):
        with _current_folder_first():
            try:
                return importlib.import_module(location)
            except ModuleNotFoundError as exc:
                if exc.name is not None and location.startswith(exc.name):
                    raise UsageError(
                        f"--tools {spec!r}: no module named {exc.name!r} in the current folder "
                        f"({os.getcwd()}) or on the Python path") from None
                raise
    path = Path(location)
    if not path.is_file():
        raise UsageError(f"--tools {spec!r}: no file {location}")
    module_name = _module_name(path)
    module_spec = importlib.util.spec_from_file_location(module_name, path)
    if module_spec is None or module_spec.loader is None:
        raise UsageError(f"--tools {spec!r}: cannot load {location}")
    module = importlib.util.module_from_spec(module_spec)
    # Registered while it runs, as an import does, so its classes resolve their postponed
    # annotations through it; unregistered after, so a module of that name imported later is
    # not shadowed and its functions travel by value (to Ray workers that cannot import it).
    sys.modules[module_name] = module
    try:
        module_spec.loader.exec_module(module)
    finally:
        sys.modules.pop(module_name, None)
    return module


def _module_name(path: Path) -> str:
    """A name no loaded module has: the file's stem and a digest of its path."""
    digest = hashlib.sha1(str(path.resolve()).encode()).hexdigest()[:8]
    return f"{path.stem}_{digest}"


@contextlib.contextmanager
def _current_folder_first() -> Iterator[None]:
    sys.path.insert(0, os.getcwd())
    try:
        yield
    finally:
        with contextlib.suppress(ValueError):
            sys.path.remove(os.getcwd())


def located(exc: BaseException, limit: int = 300) -> str:
    """``file, line N: Kind: message`` for the innermost frame in the user's code (not in this
    package or Python's import machinery), shortened."""
    frames = [frame for frame in traceback.extract_tb(exc.__traceback__)
              if not frame.filename.startswith(("<frozen", _PACKAGE))]
    where = f"{frames[-1].filename}, line {frames[-1].lineno}: " if frames else ""
    text = f"{where}{type(exc).__name__}: {exc}".replace("\n", " ")
    return text if len(text) <= limit else text[: limit - 1] + "…"

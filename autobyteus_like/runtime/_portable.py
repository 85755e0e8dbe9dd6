"""Pickling for what crosses to a Ray worker: a member's config, tools and LLM.

Objects made for one process hold locks (a ``ScriptedLLM`` guards its script with one); a lock
means nothing in another process, so it travels as a fresh, unlocked lock of the same kind.
Functions and classes go by value where cloudpickle would send them by name (tools defined in
a test module or a file the CLI loaded by path are not importable on a worker).
"""

from __future__ import annotations

import io
import sys
import threading
import types
from pathlib import Path
from typing import Any

from ray import cloudpickle

__all__ = ["dumps", "loads"]

_LOCK_TYPES: dict[type, Any] = {
    type(threading.Lock()): threading.Lock,
    type(threading.RLock()): threading.RLock,
}


_INSTALLED = tuple(str(Path(prefix).resolve()) for prefix in {sys.prefix, sys.base_prefix})


def _installed(module_name: str) -> bool:
    """Whether a worker can import the module by name: this package, or anything installed
    (the standard library, site-packages); not a test module or a file loaded by path."""
    if module_name.partition(".")[0] == "autobyteus_like":
        return True
    module = sys.modules.get(module_name)
    file = getattr(module, "__file__", None)
    return file is None or str(Path(file).resolve()).startswith(_INSTALLED)


class _PortablePickler(cloudpickle.CloudPickler):
    def reducer_override(self, obj: Any) -> Any:
        make = _LOCK_TYPES.get(type(obj))
        if make is not None:
            return make, ()
        if isinstance(obj, types.FunctionType) and not _installed(obj.__module__ or ""):
            return self._dynamic_function_reduce(obj)  # type: ignore[no-untyped-call]
        return super().reducer_override(obj)  # type: ignore[no-untyped-call]


def dumps(value: Any) -> bytes:
    """``value`` as bytes any Python process with this package installed can load."""
    buffer = io.BytesIO()
    pickler: Any = _PortablePickler(buffer, protocol=5)  # type: ignore[no-untyped-call]
    pickler.dump(value)
    return buffer.getvalue()


def loads(data: bytes) -> Any:
    """The value ``dumps`` wrote (its locks fresh)."""
    return cloudpickle.loads(data)

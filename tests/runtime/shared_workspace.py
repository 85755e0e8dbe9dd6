"""The example tools' in-memory workspace, shared by members in different processes.

``examples/example_tools.py`` keeps its files in a dict its tools close over: one dict per
process. On Ray each member has its own process, so teammates would not see each other's
files; state members share must live in a service. Here that service is a Ray actor, and the
tools' dict is swapped for a mapping that talks to it (the tools themselves are unchanged).
"""

from __future__ import annotations

from collections.abc import Iterator, MutableMapping
from typing import Any

import ray

from autobyteus_like import ToolRegistry


@ray.remote(num_cpus=0)
class FileStore:
    def __init__(self) -> None:
        self.files: dict[str, str] = {}

    def get(self, path: str) -> str | None:
        return self.files.get(path)

    def set(self, path: str, content: str) -> None:
        self.files[path] = content

    def delete(self, path: str) -> None:
        self.files.pop(path, None)

    def keys(self) -> list[str]:
        return list(self.files)


class SharedFiles(MutableMapping[str, str]):
    """A dict whose contents live in a ``FileStore`` actor (picklable: it holds a handle)."""

    def __init__(self, store: Any) -> None:
        self.store = store

    def _call(self, method: str, *args: Any) -> Any:
        return getattr(self.store, method).remote(*args).future().result(timeout=30)

    def __getitem__(self, path: str) -> str:
        value = self._call("get", path)
        if value is None:
            raise KeyError(path)
        return value

    def __setitem__(self, path: str, content: str) -> None:
        self._call("set", path, content)

    def __delitem__(self, path: str) -> None:
        self._call("delete", path)

    def __iter__(self) -> Iterator[str]:
        return iter(self._call("keys"))

    def __len__(self) -> int:
        return len(self._call("keys"))


def share_workspace(tools: ToolRegistry, store: Any) -> None:
    """Point every tool that closes over ``files`` at the shared store."""
    shared = SharedFiles(store)
    for definition in tools:
        code = definition.function.__code__
        if "files" in code.co_freevars:
            cell = definition.function.__closure__[code.co_freevars.index("files")]
            cell.cell_contents = shared

"""Reading a YAML configuration file within bounds: a hostile or broken file costs a clear
``ConfigError`` and well under a second, never a traceback, gigabytes or a frozen process.

``yaml.safe_load`` alone never runs code, but an alias bomb (a few lines whose aliases expand to
millions of values), nesting thousands of levels deep (``RecursionError`` in the composer) or
bytes that are not UTF-8 all escape it as something else. Here the file's size, the nesting depth
and the size of the document with every alias expanded are limited while loading.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from yaml.composer import ComposerError
from yaml.nodes import MappingNode, Node, SequenceNode

from autobyteus_like.errors import ConfigError

__all__ = ["MAX_DEPTH", "MAX_FILE_BYTES", "MAX_VALUES", "RECURSIVE", "load_yaml"]

MAX_FILE_BYTES = 4 * 1024 * 1024
"""A team file is hand-written; megabytes mean something went wrong."""
MAX_DEPTH = 64
"""Nesting levels allowed (a team file needs about ten)."""
MAX_VALUES = 200_000
"""Values allowed in the document once every alias is expanded."""


class _BoundedLoader(yaml.SafeLoader):
    """``SafeLoader`` that refuses documents nested deeper than ``MAX_DEPTH``."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0

    def compose_node(self, parent: Node | None, index: Any) -> Node | None:
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                raise ComposerError(None, None, f"nesting is deeper than {MAX_DEPTH} levels",
                                    self.peek_event().start_mark)  # type: ignore[no-untyped-call]
            node: Node | None = super().compose_node(parent, index)
            return node
        finally:
            self._depth -= 1


RECURSIVE = -1
"""What ``_expanded_size`` says of a document with an alias inside the value it names
(``&m [*m]``): it would be infinite."""


def _expanded_size(root: Node) -> int:
    """How many values the document holds with every alias expanded (an alias is the same node
    object as its anchor, so sizes are computed once per node, in linear time); ``RECURSIVE``
    for a node that contains itself."""
    sizes: dict[int, int] = {}
    open_nodes: set[int] = set()
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        if id(node) in sizes:
            continue
        if not children_done and id(node) in open_nodes:
            return RECURSIVE
        if isinstance(node, SequenceNode):
            children: list[Node] = list(node.value)
        elif isinstance(node, MappingNode):
            children = [part for pair in node.value for part in pair]
        else:
            sizes[id(node)] = 1
            continue
        if children_done:
            open_nodes.discard(id(node))
            sizes[id(node)] = min(1 + sum(sizes[id(child)] for child in children),
                                  MAX_VALUES + 1)
        else:
            open_nodes.add(id(node))
            stack.append((node, True))
            for child in children:
                if id(child) in open_nodes:
                    return RECURSIVE
                if id(child) not in sizes:
                    stack.append((child, False))
    return sizes[id(root)]


def _where(error: yaml.MarkedYAMLError | None) -> str:
    mark = getattr(error, "problem_mark", None)
    return f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""


def load_yaml(path: str | Path) -> Any:
    """The data in a YAML file, or a ``ConfigError`` naming the file and what is wrong."""
    path = Path(path)
    try:
        with path.open("rb") as handle:
            raw = handle.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise ConfigError(path, [f"cannot read the file: {exc.strerror or exc}"]) from None
    if len(raw) > MAX_FILE_BYTES:
        raise ConfigError(path, [f"the file is larger than {MAX_FILE_BYTES} bytes"])
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise ConfigError(path, [f"line {line}: the file is not UTF-8 text "
                                 f"(byte 0x{raw[exc.start]:02x} at offset {exc.start})"]) from None
    loader = _BoundedLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        size = _expanded_size(node)
        if size == RECURSIVE:
            raise ConfigError(path, ["an alias refers to a value that contains it (a "
                                     "recursive alias such as '&a [*a]')"])
        if size > MAX_VALUES:
            raise ConfigError(path, [f"the document expands to more than {MAX_VALUES} values "
                                     "(aliases repeated inside aliases?)"])
        try:
            return loader.construct_document(node)
        except (ValueError, TypeError, OverflowError) as exc:  # a tag PyYAML cannot build
            raise ConfigError(path, [f"a value cannot be read: {str(exc)[:200]}"]) from None
    except yaml.MarkedYAMLError as exc:
        problem = exc.problem or str(exc)
        raise ConfigError(path, [f"{_where(exc)}invalid YAML: {problem}"]) from None
    except yaml.YAMLError as exc:
        raise ConfigError(path, [f"invalid YAML: {exc}"]) from None
    finally:
        loader.dispose()

"""Per-call cost of the sandbox path layer against the string-based approach it replaced.

Run: ``python benchmarks/fs_benchmark.py``

Each operation is done twice on the same files, with the same file work (the same reads,
writes and listings), differing only in how the path is handled:

- string: ``os.path.realpath`` + a prefix check against the root, then ``open`` of the
  resulting string (what the fs tools did before; racy, kept here only as a reference);
- layer: an ``O_PATH`` descriptor for the root, each component opened beneath the one before
  with ``O_NOFOLLOW``, ``fstat`` checks on the final descriptor (``SandboxPolicy.open`` +
  ``walk`` from ``autobyteus_like.tools._sandbox_root``).

Paths one and five components deep are measured. The full tool call (argument validation
included) is printed too, to show what share of a call the path handling is. Timings are the
best of several rounds of many calls.

Last, ``search.lexical`` over 4 MB in 80 files (one RE2 scan per file) against matching the
same lines one by one with RE2 and with Python's ``re`` (which the tool used before, and which
can backtrack for hours on a hostile pattern).
"""

from __future__ import annotations

import os
import re
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from autobyteus_like.tools import SandboxPolicy, ToolContext, builtin_tools
from autobyteus_like.tools._sandbox_files import (
    check_regular,
    open_for_reading,
    open_for_writing,
    read_lines,
    replace_content,
)
from autobyteus_like.tools._sandbox_tree import list_sorted, open_directory
from autobyteus_like.tools.builtin._search import compile_query

ROUNDS = 7
CALLS = 2000
LIMIT = 1_000_000
CONTENT = ("a line of ordinary text, about sixty characters long......\n" * 60).encode()


def best_us(action: Callable[[], object]) -> float:
    """The best per-call time of ``action`` over ROUNDS rounds of CALLS calls, in µs."""
    best = float("inf")
    for _ in range(ROUNDS):
        started = time.perf_counter()
        for _ in range(CALLS):
            action()
        best = min(best, (time.perf_counter() - started) / CALLS)
    return best * 1e6


def string_resolve(root: Path, path: str) -> str:
    real = os.path.realpath(root / path)
    if not (real == str(root) or real.startswith(str(root) + os.sep)):
        raise PermissionError(path)
    return real


def layer_resolve(policy: SandboxPolicy, path: str) -> None:
    with policy.open(path) as target:
        reached = target.walk(lambda directory, name: os.open(
            name, os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=directory))
        os.close(reached.value)


def string_read(root: Path, path: str) -> None:
    descriptor = os.open(string_resolve(root, path), os.O_RDONLY | os.O_CLOEXEC)
    try:
        os.fstat(descriptor)
        read_lines(descriptor, 1, None, LIMIT)
    finally:
        os.close(descriptor)


def layer_read(policy: SandboxPolicy, path: str) -> None:
    with policy.open(path) as target:
        opened = target.walk(open_for_reading)
        try:
            check_regular(opened.value, opened.shown, allow_hardlinks=False)
            read_lines(opened.value, 1, None, LIMIT)
        finally:
            os.close(opened.value)


def string_write(root: Path, path: str) -> None:
    descriptor = os.open(string_resolve(root, path),
                         os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC,
                         0o644)
    try:
        os.write(descriptor, CONTENT)
    finally:
        os.close(descriptor)


def layer_write(policy: SandboxPolicy, path: str) -> None:
    with policy.open(path) as target:
        opened = target.walk(open_for_writing, make_parents=True)
        try:
            check_regular(opened.value, opened.shown, allow_hardlinks=False)
            replace_content(opened.value, CONTENT)
        finally:
            os.close(opened.value)


def string_ls(root: Path, path: str) -> None:
    with os.scandir(string_resolve(root, path)) as listing:
        for entry in sorted(listing, key=lambda entry: entry.name):
            entry.stat(follow_symlinks=False)


def layer_ls(policy: SandboxPolicy, path: str) -> None:
    with policy.open(path) as target:
        opened = target.walk(open_directory)
        try:
            for entry in list_sorted(opened.value):
                entry.stat(follow_symlinks=False)
        finally:
            os.close(opened.value)


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(os.path.realpath(folder))
        policy = SandboxPolicy(roots=[root])
        deep = root / "a" / "b" / "c" / "d"
        deep.mkdir(parents=True)
        for base in (root, deep):
            (base / "file.txt").write_bytes(CONTENT)
            (base / "listing").mkdir()
            for number in range(50):
                (base / "listing" / f"entry{number:02}.txt").write_text("x")
        tools, context = builtin_tools(), ToolContext(sandbox=policy)

        def tool(name: str, **arguments: object) -> Callable[[], object]:
            definition = tools.get(name)
            return lambda: definition.run(arguments, context)

        print(f"{CALLS} calls x best of {ROUNDS} rounds; file of {len(CONTENT)} bytes, "
              "directory of 50 entries\n")
        print(f"{'operation':<28} {'string µs':>10} {'layer µs':>10} {'layer/string':>13} "
              f"{'tool call µs':>13}")
        for prefix in ("", "a/b/c/d/"):
            depth = prefix.count("/") + 1
            rows: list[tuple[str, str, Callable[[Path, str], object],
                             Callable[[SandboxPolicy, str], object],
                             Callable[[], object] | None]] = [
                ("resolve", "file.txt", string_resolve, layer_resolve, None),
                ("fs.read", "file.txt", string_read, layer_read,
                 tool("fs.read", path=prefix + "file.txt")),
                ("fs.write", "out.txt", string_write, layer_write,
                 tool("fs.write", path=prefix + "out.txt", content=CONTENT.decode())),
                ("fs.ls", "listing", string_ls, layer_ls, tool("fs.ls", path=prefix + "listing")),
            ]
            for label, name, old, new, full in rows:
                path = prefix + name
                old_us = best_us(partial(old, root, path))
                new_us = best_us(partial(new, policy, path))
                tool_us = f"{best_us(full):13.1f}" if full else f"{'':>13}"
                print(f"{label + f' (depth {depth})':<28} {old_us:10.1f} {new_us:10.1f} "
                      f"{new_us / old_us:12.2f}x {tool_us}")


def best_ms(action: Callable[[], object], rounds: int = 5) -> float:
    best = float("inf")
    for _ in range(rounds):
        started = time.perf_counter()
        action()
        best = min(best, time.perf_counter() - started)
    return best * 1e3


def search_figures() -> None:
    unit = "def function_name(argument):\n    return argument + 1\n" * 1000
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        for number in range(80):
            (root / f"module{number:02}.py").write_text(unit)
        texts = [path.read_text() for path in sorted(root.iterdir())]
        search = builtin_tools().get("search.lexical")
        context = ToolContext(sandbox=SandboxPolicy(roots=[root]))
        print(f"\nsearch.lexical over {sum(map(len, texts)) / 1e6:.1f} MB in 80 files, "
              "no match ('^needle$'), best of 5:")
        tool_ms = best_ms(lambda: search.run({"query": "^needle$"}, context))
        engine = compile_query("^needle$")
        per_line_re2 = best_ms(lambda: [engine.search(line) for text in texts
                                        for line in text.split("\n")])
        backtracking = re.compile("^needle$")
        per_line_re = best_ms(lambda: [backtracking.search(line) for text in texts
                                       for line in text.split("\n")])
        print(f"  tool call (walk, read, one RE2 scan per file)  {tool_ms:8.1f} ms")
        print(f"  RE2 line by line (matching only)               {per_line_re2:8.1f} ms")
        print(f"  Python re line by line (matching only)         {per_line_re:8.1f} ms")


if __name__ == "__main__":
    main()
    search_figures()

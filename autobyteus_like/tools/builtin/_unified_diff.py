"""Applies a unified diff to a text, strictly: every context and removed line must match.

Lines end at ``\n`` only, as ``diff -u`` and ``fs.read`` count them (``str.splitlines`` would
also split at form feeds and other separators that ``diff`` keeps inside a line).
"""

from __future__ import annotations

import re

from autobyteus_like.errors import PatchError

__all__ = ["PatchError", "apply_unified_diff"]

_HUNK = re.compile(r"^@@ -(\d{1,9})(?:,(\d{1,9}))? \+(\d{1,9})(?:,(\d{1,9}))? @@")
_HUNK_LIKE = re.compile(r"^@@ -\d")
_HEADER = ("---", "+++", "diff ", "index ", "new file", "deleted file", "similarity", "rename")


def apply_unified_diff(original: str, diff: str) -> tuple[str, int]:
    """The patched text and the number of hunks applied."""
    lines = _lines(original)
    patch = _lines(diff)
    out: list[str] = []
    position = 0
    hunks = 0
    i = 0
    while i < len(patch):
        header = _HUNK.match(patch[i])
        if header is None:
            if _HUNK_LIKE.match(patch[i]):
                raise PatchError(f"line {i + 1} of the diff is a hunk header with numbers out "
                                 f"of range: {patch[i][:80]!r}")
            if patch[i].startswith(_HEADER) or not patch[i].strip():
                i += 1
                continue
            raise PatchError(f"line {i + 1} of the diff is outside any hunk: {patch[i]!r}")
        hunks += 1
        start, count = int(header.group(1)), int(header.group(2) or "1")
        target = start - 1 if count else start
        if target < position:
            raise PatchError(f"hunk {hunks} overlaps the previous one")
        if target > len(lines):
            raise PatchError(f"hunk {hunks} starts at line {start}, past the end of the file "
                             f"({len(lines)} lines)")
        out.extend(lines[position:target])
        position = target
        i += 1
        while i < len(patch) and not patch[i].startswith("@@"):
            line = patch[i]
            tag, text = line[:1], line[1:]
            if line.startswith("\\"):  # "\ No newline at end of file"
                if out and patch[i - 1].startswith("+"):
                    out[-1] = out[-1].rstrip("\r\n")
            elif tag in (" ", "-") or line in ("\n", "\r\n"):
                expected = text if tag in (" ", "-") else ""
                actual = lines[position] if position < len(lines) else None
                if actual is None or actual.rstrip("\r\n") != expected.rstrip("\r\n"):
                    shown = "the end of the file" if actual is None else repr(actual.rstrip())
                    raise PatchError(f"hunk {hunks} does not apply: line {position + 1} is "
                                     f"{shown}, the diff expects {expected.rstrip()!r}")
                if tag != "-":
                    out.append(actual)
                position += 1
            elif tag == "+":
                out.append(text if text.endswith("\n") else text + "\n")
            else:
                raise PatchError(f"line {i + 1} of the diff has no ' ', '-' or '+': {line!r}")
            i += 1
    if not hunks:
        raise PatchError("the diff has no hunks (lines starting with @@ -a,b +c,d @@)")
    out.extend(lines[position:])
    return "".join(out), hunks


def _lines(text: str) -> list[str]:
    """The lines of ``text``, each with its ``\n`` (the last may have none)."""
    pieces = text.split("\n")
    lines = [piece + "\n" for piece in pieces[:-1]]
    if pieces[-1]:
        lines.append(pieces[-1])
    return lines

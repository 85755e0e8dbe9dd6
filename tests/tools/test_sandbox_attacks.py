"""Hostile paths against every tool that touches files: zero escapes, nothing written outside."""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from autobyteus_like import ErrorCode
from autobyteus_like.tools import SandboxPolicy, ToolContext, ToolFailure, builtin_tools


def snapshot(folder: Path) -> dict[str, bytes | str]:
    """Every entry under ``folder`` (without following links) and its content."""
    found: dict[str, bytes | str] = {}
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:
            path = Path(root) / name
            key = str(path.relative_to(folder))
            found[key] = (f"link->{os.readlink(path)}" if path.is_symlink()
                          else path.read_bytes() if path.is_file() else "dir")
    return found


@pytest.fixture
def world(tmp_path):
    """A workspace root, a secret directory beside it, and symlinks that lead out."""
    root, outside = tmp_path / "root", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (outside / "secret.txt").write_text("top secret")
    (root / "inside.txt").write_text("fine")
    os.symlink(outside, root / "door")                   # a directory link out
    os.symlink(outside / "secret.txt", root / "leak.txt")  # a file link out
    os.symlink(root / "door", root / "door2")            # a chain out
    os.symlink("../outside/new.txt", root / "dangling")  # a dangling link out
    return root, outside


ATTACKS = [
    "../outside/new.txt", "a/../../outside/new.txt", "./../outside/new.txt",
    "door/new.txt", "door2/new.txt", "leak.txt", "dangling", "door/secret.txt",
    "{outside}/new.txt", "/etc/{unique}", "~/{unique}",
    "inside.txt\x00../../outside/new.txt", "x" * 5000, "/".join([".."] * 50) + "/tmp/x",
    "..%2foutside%2fnew.txt", "\uff0e\uff0e/outside/new.txt", "..\\outside\\new.txt",
    "door/../door/new.txt",
]


def calls(path: str) -> list[tuple[str, dict]]:
    return [
        ("fs.write", {"path": path, "content": "pwned"}),
        ("fs.append", {"path": path, "text": "pwned"}),
        ("fs.mkdir", {"path": path}),
        ("fs.copy", {"src": "inside.txt", "dst": path}),
        ("fs.copy", {"src": path, "dst": "copied.txt"}),
        ("fs.patch", {"path": path, "diff": "@@ -1 +1 @@\n-zzz\n+pwned\n"}),
        ("fs.read", {"path": path}),
        ("fs.ls", {"path": path}),
        ("search.lexical", {"query": "secret", "scope": path}),
        ("terminal.run", {"cmd": ["true"], "cwd": path}),
    ]


def attempt(root: Path, name: str, arguments: dict) -> object:
    tools = builtin_tools()
    context = ToolContext(agent="a", sandbox=SandboxPolicy(roots=[root]))
    try:
        return tools.get(name).run(arguments, context)
    except ToolFailure as failure:
        return failure
    except Exception as exc:  # validation errors and the like are refusals too
        return exc


@pytest.mark.parametrize("raw", ATTACKS)
def test_no_attack_escapes(world, raw):
    root, outside = world
    unique = f"autobyteus_escape_{uuid.uuid4().hex}"
    path = raw.replace("{outside}", str(outside)).replace("{unique}", unique)
    before = snapshot(outside)
    for name, arguments in calls(path):
        outcome = attempt(root, name, arguments)
        if isinstance(outcome, ToolFailure):
            assert outcome.code in (ErrorCode.PERMISSION_DENIED, ErrorCode.NOT_FOUND,
                                    ErrorCode.INVALID_ARGS), (name, path, outcome.message)
        text = str(outcome)
        assert "top secret" not in text, (name, path)
    assert snapshot(outside) == before
    assert not (Path.home() / unique).exists() and not (Path("/etc") / unique).exists()


def test_escapes_are_refused_with_permission_denied(world):
    root, outside = world
    for path in ("../outside/new.txt", "door/new.txt", "leak.txt", str(outside / "x")):
        outcome = attempt(root, "fs.write", {"path": path, "content": "x"})
        assert isinstance(outcome, ToolFailure)
        assert outcome.code is ErrorCode.PERMISSION_DENIED
        assert "outside the allowed directories" in outcome.message


def test_search_skips_links_that_lead_out(world):
    root, _ = world
    assert attempt(root, "search.lexical", {"query": "secret|fine"}) == [
        {"path": "inside.txt", "line": 1, "content": "fine", "context": ["fine"]}]


SEGMENTS = st.sampled_from(["..", ".", "door", "door2", "leak.txt", "dangling", "x", "",
                            "%2e%2e", "\uff0e\uff0e", "~", "outside", "new.txt"])


def home_and_root_entries() -> set[str]:
    return {str(p) for base in (Path.home(), Path("/")) for p in base.iterdir()}


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(parts=st.lists(SEGMENTS, min_size=1, max_size=6), absolute=st.booleans())
def test_fuzzed_paths_never_write_outside(world, parts, absolute):
    root, outside = world
    path = ("/" if absolute else "") + "/".join(parts)
    before, around = snapshot(outside), home_and_root_entries()
    for name in ("fs.write", "fs.append", "fs.mkdir"):
        arguments = {"path": path, "content": "z", "text": "z"}
        arguments = {k: v for k, v in arguments.items()
                     if k in builtin_tools().get(name).argument_names}
        outcome = attempt(root, name, arguments)
        if not isinstance(outcome, Exception):
            written = Path(os.path.realpath(root / outcome["path"]))
            assert written.is_relative_to(root)
    assert snapshot(outside) == before
    assert home_and_root_entries() == around

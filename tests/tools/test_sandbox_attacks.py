"""Hostile paths against every tool that touches files: zero escapes, nothing written outside,
nothing secret read, no call blocked."""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from autobyteus_like import ErrorCode
from autobyteus_like.tools import ToolFailure
from tests.tools.sandbox_helpers import bounded, call, snapshot

REFUSALS = (ErrorCode.PERMISSION_DENIED, ErrorCode.NOT_FOUND, ErrorCode.INVALID_ARGS)


@pytest.fixture
def world(tmp_path):
    """A workspace root, a secret directory beside it, and ways out: symlinks, a hard link,
    a FIFO, nested chains of links, and a directory whose entry leads out."""
    root, outside = tmp_path / "root", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (outside / "secret.txt").write_text("top secret")
    (root / "inside.txt").write_text("fine")
    os.symlink(outside, root / "door")                   # a directory link out
    os.symlink(outside / "secret.txt", root / "leak.txt")  # a file link out
    os.symlink(root / "door", root / "door2")            # a chain out
    os.symlink("../outside/new.txt", root / "dangling")  # a dangling link out
    os.link(outside / "secret.txt", root / "hl.txt")     # a hard link to the secret
    os.mkfifo(root / "pipe")                              # a plain open would block on it
    (root / "sub").mkdir()
    os.symlink("../door", root / "sub" / "up")           # nested: a link to a link out
    os.symlink("sub/up", root / "chain_out")             # a chain of relative links out
    (root / "sub" / "inner.txt").write_text("deep")
    os.symlink("sub/../sub/inner.txt", root / "chain_in")  # a chain that stays inside
    (root / "into").mkdir()                               # copying inside.txt into it ...
    os.symlink(outside / "secret.txt", root / "into" / "inside.txt")  # ... meets a link out
    return root, outside


def attempt(root: Path, name: str, arguments: dict) -> object:
    """The outcome of one call, which must not block (the FIFO is released if it does)."""
    return bounded(lambda: call(root, name, arguments), 10, fifos=(root / "pipe",))


ATTACKS = [
    "../outside/new.txt", "a/../../outside/new.txt", "./../outside/new.txt",
    "door/new.txt", "door2/new.txt", "leak.txt", "dangling", "door/secret.txt",
    "{outside}/new.txt", "/etc/{unique}", "~/{unique}",
    "inside.txt\x00../../outside/new.txt", "x" * 5000, "/".join([".."] * 50) + "/tmp/x",
    "..%2foutside%2fnew.txt", "\uff0e\uff0e/outside/new.txt", "..\\outside\\new.txt",
    "door/../door/new.txt", "hl.txt", "pipe", "chain_out", "chain_out/secret.txt",
    "sub/up/new.txt", "into", "into/inside.txt", "sub/../../outside/new.txt",
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


@pytest.mark.parametrize("raw", ATTACKS)
def test_no_attack_escapes(world, raw):
    root, outside = world
    unique = f"autobyteus_escape_{uuid.uuid4().hex}"
    path = raw.replace("{outside}", str(outside)).replace("{unique}", unique)
    before = snapshot(outside)
    for name, arguments in calls(path):
        outcome = attempt(root, name, arguments)
        if isinstance(outcome, ToolFailure):
            assert outcome.code in REFUSALS, (name, path, outcome.message)
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


def test_search_skips_hard_links_fifos_and_chains_out(world):
    root, _ = world
    found = attempt(root, "search.lexical", {"query": "secret|fine|deep"})
    assert [hit["path"] for hit in found] == ["chain_in", "inside.txt", "sub/inner.txt"]


def test_copying_the_whole_root_is_refused_while_it_holds_a_hard_link_out(world):
    root, outside = world
    before = snapshot(outside)
    refused = attempt(root, "fs.copy", {"src": ".", "dst": "backup"})
    assert isinstance(refused, ToolFailure) and refused.code is ErrorCode.PERMISSION_DENIED
    assert not (root / "backup").exists()
    os.unlink(root / "hl.txt")
    copied = attempt(root, "fs.copy", {"src": ".", "dst": "backup"})
    assert sorted(item["path"] for item in copied["skipped"]) == [
        "chain_in", "chain_out", "dangling", "door", "door2", "into/inside.txt", "leak.txt",
        "pipe", "sub/up"]
    assert snapshot(root / "backup") == {"inside.txt": b"fine", "into": "dir", "sub": "dir",
                                         "sub/inner.txt": b"deep"}
    assert snapshot(outside) == before


SEGMENTS = st.sampled_from(["..", ".", "door", "door2", "leak.txt", "dangling", "x", "",
                            "%2e%2e", "\uff0e\uff0e", "~", "outside", "new.txt", "hl.txt",
                            "pipe", "sub", "up", "chain_out", "chain_in", "into",
                            "inside.txt", "secret.txt"])


def home_and_root_entries() -> set[str]:
    return {str(p) for base in (Path.home(), Path("/")) for p in base.iterdir()}


def fuzz_calls(path: str) -> list[tuple[str, dict]]:
    return [
        ("fs.write", {"path": path, "content": "z"}),
        ("fs.append", {"path": path, "text": "z"}),
        ("fs.mkdir", {"path": path}),
        ("fs.read", {"path": path}),
        ("fs.ls", {"path": path}),
        ("fs.copy", {"src": path, "dst": "fuzz_copy"}),
        ("fs.copy", {"src": "inside.txt", "dst": path}),
        ("fs.patch", {"path": path, "diff": "@@ -1 +1 @@\n-zzz\n+pwned\n"}),  # quotes line 1
        ("search.lexical", {"query": "secret", "scope": path}),
    ]


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(parts=st.lists(SEGMENTS, min_size=1, max_size=6), absolute=st.booleans())
def test_fuzzed_paths_never_escape(world, parts, absolute):
    root, outside = world
    path = ("/" if absolute else "") + "/".join(parts)
    before, around = snapshot(outside), home_and_root_entries()
    for name, arguments in fuzz_calls(path):
        outcome = attempt(root, name, arguments)
        assert "top secret" not in str(outcome), (name, path)
        if isinstance(outcome, Exception):
            assert isinstance(outcome, ToolFailure), (name, path, repr(outcome))
            assert outcome.code in REFUSALS, (name, path, outcome.message)
        elif isinstance(outcome, dict) and isinstance(outcome.get("path"), str):
            written = Path(os.path.realpath(root / outcome["path"]))
            assert written.is_relative_to(root)
    assert snapshot(outside) == before
    assert home_and_root_entries() == around

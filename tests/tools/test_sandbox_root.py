"""The path layer itself: how a path is walked beneath its root (links, ``..``, absolute
paths, limits), ``SandboxPolicy.resolve`` built on it, and no descriptor left open."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from autobyteus_like import ErrorCode
from autobyteus_like.tools import SandboxPolicy, ToolContext, ToolFailure, builtin_tools
from autobyteus_like.tools._sandbox_root import MAX_DEPTH, MAX_SYMLINKS, SandboxRoot
from autobyteus_like.tools._sandbox_tree import open_directory
from tests.tools.sandbox_helpers import bounded, call


@pytest.fixture
def world(tmp_path: Path) -> tuple[Path, Path]:
    root, outside = tmp_path / "root", tmp_path / "rootother"  # shares the root's prefix
    (root / "sub").mkdir(parents=True)
    outside.mkdir()
    (root / "sub" / "real.txt").write_text("real")
    (outside / "secret.txt").write_text("top secret")
    return root, outside


def refusal(root: Path, path: str) -> ToolFailure:
    outcome = call(root, "fs.read", {"path": path})
    assert isinstance(outcome, ToolFailure), outcome
    return outcome


def test_relative_links_are_followed_component_by_component(world):
    root, _ = world
    os.symlink("sub", root / "s")
    os.symlink("../sub/./real.txt", root / "sub" / "again")
    os.symlink("s/again", root / "two-hops")
    assert call(root, "fs.read", {"path": "two-hops"})["content"] == "real"
    assert call(root, "fs.read", {"path": "s/../s/real.txt"})["content"] == "real"


def test_dot_dot_never_climbs_above_the_root(world):
    root, _ = world
    for path in ("..", "sub/../..", f"sub/../../{root.name}/sub/real.txt", "sub/../../x"):
        refused = refusal(root, path)
        assert refused.code is ErrorCode.PERMISSION_DENIED, path
        assert "outside the allowed directories" in refused.message


def test_a_link_whose_resolution_leaves_the_root_is_refused_even_if_it_comes_back(world):
    root, _ = world
    os.symlink(f"../{root.name}/sub/real.txt", root / "out-and-back")
    refused = refusal(root, "out-and-back")
    assert refused.code is ErrorCode.PERMISSION_DENIED
    assert "the link 'out-and-back' leads to" in refused.message


def test_absolute_links_are_followed_only_beneath_the_root(world):
    root, outside = world
    os.symlink(root / "sub" / "real.txt", root / "abs-in")
    os.symlink(outside / "secret.txt", root / "abs-sibling")  # /…/rootother starts with /…/root
    os.symlink(root, root / "sub" / "top")
    assert call(root, "fs.read", {"path": "abs-in"})["content"] == "real"
    assert call(root, "fs.read", {"path": "sub/top/sub/real.txt"})["content"] == "real"
    assert refusal(root, "abs-sibling").code is ErrorCode.PERMISSION_DENIED


def test_absolute_arguments_must_begin_with_a_root(world):
    root, outside = world
    assert call(root, "fs.read", {"path": str(root / "sub" / "real.txt")})["content"] == "real"
    assert refusal(root, str(outside / "secret.txt")).code is ErrorCode.PERMISSION_DENIED
    assert refusal(root, f"{root}/../{root.name}/sub/real.txt").code is \
        ErrorCode.PERMISSION_DENIED


def test_link_chains_are_bounded(world):
    root, _ = world
    previous = "sub/real.txt"
    for number in range(MAX_SYMLINKS + 1):
        os.symlink(previous, root / f"chain{number}")
        previous = f"chain{number}"
    assert call(root, "fs.read", {"path": f"chain{MAX_SYMLINKS - 1}"})["content"] == "real"
    refused = refusal(root, f"chain{MAX_SYMLINKS}")
    assert refused.code is ErrorCode.INVALID_ARGS and "symbolic links" in refused.message
    os.symlink("loop", root / "loop")
    assert refusal(root, "loop/x").code is ErrorCode.INVALID_ARGS


def test_depth_is_bounded(world):
    root, _ = world
    refused = call(root, "fs.mkdir", {"path": "/".join(["d"] * (MAX_DEPTH + 1))})
    assert isinstance(refused, ToolFailure) and refused.code is ErrorCode.INVALID_ARGS
    assert f"deeper than {MAX_DEPTH}" in refused.message
    assert call(root, "fs.mkdir", {"path": "/".join(["d"] * 40)})["path"].count("/") == 39


def test_resolve_returns_the_real_location_and_keeps_missing_components(world):
    root, _ = world
    os.symlink("sub", root / "alias")
    policy = SandboxPolicy(roots=[root])
    assert policy.resolve("alias/real.txt") == root / "sub" / "real.txt"
    assert policy.resolve("alias/new/deeper") == root / "sub" / "new" / "deeper"
    assert policy.resolve(".") == root
    assert not (root / "sub" / "new").exists()
    with pytest.raises(ToolFailure) as missing_up:
        policy.resolve("alias/new/../real.txt")
    assert missing_up.value.code is ErrorCode.NOT_FOUND
    with pytest.raises(ToolFailure) as out:
        policy.resolve("../rootother", argument="cwd")
    assert out.value.code is ErrorCode.PERMISSION_DENIED and out.value.message.startswith("cwd")


def test_terminal_run_still_gets_its_cwd_from_resolve(world):
    root, outside = world
    os.symlink("sub", root / "alias")
    os.symlink(outside, root / "door")
    context = ToolContext(sandbox=SandboxPolicy(roots=[root]))
    terminal = builtin_tools().get("terminal.run")
    assert terminal.run({"cmd": ["pwd"], "cwd": "alias"}, context)["stdout"].strip() == \
        str(root / "sub")
    with pytest.raises(ToolFailure) as refused:
        terminal.run({"cmd": ["pwd"], "cwd": "door"}, context)
    assert refused.value.code is ErrorCode.PERMISSION_DENIED


def test_the_walk_opens_the_final_component_beneath_the_root_descriptor(world):
    root, _ = world
    with SandboxRoot(root) as opened:
        reached = opened.walk(["sub", "..", "sub"], open_directory, shown="sub/../sub")
        try:
            assert reached.parts == ("sub",) and reached.shown == "sub"
            assert sorted(os.listdir(reached.value)) == ["real.txt"]
        finally:
            os.close(reached.value)


def test_no_descriptor_is_left_open(world):
    root, outside = world
    os.symlink(outside, root / "door")
    os.mkfifo(root / "pipe")
    os.symlink("sub", root / "alias")
    (root / "tree" / "a").mkdir(parents=True)
    (root / "tree" / "a" / "f.txt").write_text("f")
    os.symlink("f.txt", root / "tree" / "a" / "link")
    calls = [
        ("fs.read", {"path": "alias/real.txt"}), ("fs.read", {"path": "door/secret.txt"}),
        ("fs.read", {"path": "pipe"}), ("fs.read", {"path": "nope/x"}),
        ("fs.write", {"path": "alias/w.txt", "content": "w"}), ("fs.ls", {"path": "."}),
        ("fs.copy", {"src": "tree", "dst": "tree2"}), ("fs.copy", {"src": "tree", "dst": "tree2"}),
        ("fs.copy", {"src": "alias/real.txt", "dst": "tree"}), ("fs.mkdir", {"path": "m/n"}),
        ("fs.patch", {"path": "alias/real.txt", "diff": "@@ -1 +1 @@\n-x\n+y\n"}),
        ("search.lexical", {"query": "real|f"}), ("fs.ls", {"path": "door"}),
    ]
    before = sorted(os.listdir("/proc/self/fd"))
    for name, arguments in calls * 3:
        bounded(lambda name=name, arguments=arguments: call(root, name, arguments), 10,
                fifos=(root / "pipe",))
    assert sorted(os.listdir("/proc/self/fd")) == before

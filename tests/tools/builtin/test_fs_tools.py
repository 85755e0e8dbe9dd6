import os
import socket
import tracemalloc

import pytest

from autobyteus_like import ErrorCode
from autobyteus_like.tools import SandboxPolicy, ToolContext, ToolFailure, builtin_tools
from tests.tools.sandbox_helpers import bounded


def failure(call, *args, **kwargs) -> ToolFailure:
    with pytest.raises(ToolFailure) as caught:
        call(*args, **kwargs)
    return caught.value


def test_write_read_append_and_ranges(run, tmp_path):
    assert run("fs.write", path="notes/a.txt", content="one\ntwo\nthree\n") == {
        "path": "notes/a.txt", "bytes": 14}
    assert run("fs.append", path="notes/a.txt", text="four\n")["bytes"] == 5
    whole = run("fs.read", path="notes/a.txt")
    assert (whole["content"], whole["lines"], whole["truncated"]) == (
        "one\ntwo\nthree\nfour\n", 4, False)
    middle = run("fs.read", path="notes/a.txt", range={"start": 2, "end": 3})
    assert middle["content"] == "two\nthree\n" and middle["lines"] == 2


def test_size_limits(run):
    assert failure(run, "fs.write", {"max_write_bytes": 3}, path="a", content="four").code is \
        ErrorCode.QUOTA_EXCEEDED
    run("fs.write", path="big.txt", content="x" * 50 + "\n" + "y" * 50 + "\n")
    refused = failure(run, "fs.read", {"max_read_bytes": 60}, path="big.txt")
    assert refused.code is ErrorCode.QUOTA_EXCEEDED
    assert refused.suggestion == "read a range of lines"
    cut = run("fs.read", {"max_read_bytes": 60}, path="big.txt", range={"start": 1, "end": 2})
    assert cut["truncated"] is True and cut["content"] == "x" * 50 + "\n"


def test_ls_mkdir_copy_and_not_found(run):
    run("fs.mkdir", path="src/pkg")
    run("fs.write", path="src/pkg/m.py", content="print(1)\n")
    assert [e["name"] for e in run("fs.ls", path="src")] == ["pkg"]
    assert run("fs.copy", src="src", dst="backup")["bytes"] == 9
    assert run("fs.read", path="backup/pkg/m.py")["content"] == "print(1)\n"
    missing = failure(run, "fs.read", path="nope.txt")
    assert missing.code is ErrorCode.NOT_FOUND and "fs.ls" in missing.suggestion


def test_patch_applies_or_explains(run):
    run("fs.write", path="m.py", content="a = 1\nb = 2\nc = 3\n")
    assert run("fs.patch", path="m.py",
               diff="--- a/m.py\n+++ b/m.py\n@@ -1,3 +1,3 @@\n a = 1\n-b = 2\n+b = 20\n c = 3\n"
               ) == {"path": "m.py", "hunks": 1}
    assert run("fs.read", path="m.py")["content"] == "a = 1\nb = 20\nc = 3\n"
    stale = failure(run, "fs.patch", path="m.py", diff="@@ -2 +2 @@\n-b = 2\n+b = 3\n")
    assert stale.code is ErrorCode.INVALID_ARGS
    assert stale.message == "hunk 1 does not apply: line 2 is 'b = 20', the diff expects 'b = 2'"


def test_search_with_glob_and_context(run):
    run("fs.write", path="docs/a.md", content="intro\nYAML Jazz is here\nend\n")
    run("fs.write", path="docs/b.txt", content="YAML Jazz too\n")
    found = run("search.lexical", query=r"YAML\s+Jazz", glob="*.md", context=1)
    assert found == [{"path": "docs/a.md", "line": 2, "content": "YAML Jazz is here",
                      "context": ["intro", "YAML Jazz is here", "end"]}]
    assert failure(run, "search.lexical", query="(").code is ErrorCode.INVALID_ARGS


# -- regressions from the outside attack: each failed on the string-based fs tools ---------


def outside_file(tmp_path_factory, text: str = "original"):
    """A file outside the sandbox root (the ``run`` fixture's root is tmp_path)."""
    folder = tmp_path_factory.mktemp("outside")
    victim = folder / "victim.txt"
    victim.write_text(text)
    return victim


def test_copy_into_a_directory_does_not_follow_a_link_there_out(run, tmp_path,
                                                                tmp_path_factory):
    victim = outside_file(tmp_path_factory)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "victim.txt").write_text("pwned")
    (tmp_path / "dst").mkdir()
    os.symlink(victim, tmp_path / "dst" / "victim.txt")
    refused = failure(run, "fs.copy", src="src/victim.txt", dst="dst")
    assert refused.code is ErrorCode.PERMISSION_DENIED
    assert "outside the allowed directories" in refused.message
    assert victim.read_text() == "original"
    # Copying into a directory still works: the file lands there under its own name.
    (tmp_path / "empty").mkdir()
    assert run("fs.copy", src="src/victim.txt", dst="empty") == {
        "src": "src/victim.txt", "dst": "empty/victim.txt", "bytes": 5, "skipped": []}


def test_copying_a_tree_skips_its_symlinks_and_says_so(run, tmp_path, tmp_path_factory):
    victim = outside_file(tmp_path_factory)
    # Inside the root, a/b/victim.txt -> ../../outside/victim.txt stays inside; copied to c/,
    # the same relative link would point above the root (at the victim's folder's sibling).
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "victim.txt").write_text("in-root")
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / "b" / "keep.txt").write_text("kept")
    os.symlink("../../outside/victim.txt", tmp_path / "a" / "b" / "victim.txt")
    copied = run("fs.copy", src="a/b", dst="c")
    assert copied == {"src": "a/b", "dst": "c", "bytes": 4,
                      "skipped": [{"path": "a/b/victim.txt", "reason": "a symbolic link"}]}
    assert sorted(p.name for p in (tmp_path / "c").iterdir()) == ["keep.txt"]
    # A second copy into c/ writes a new regular file, nothing outside.
    (tmp_path / "new").mkdir()
    (tmp_path / "new" / "victim.txt").write_text("pwned")
    run("fs.copy", src="new/victim.txt", dst="c")
    assert (tmp_path / "c" / "victim.txt").read_text() == "pwned"
    assert not (tmp_path / "c" / "victim.txt").is_symlink()
    assert victim.read_text() == "original"


def test_hardlinked_files_are_refused_unless_the_policy_allows_them(run, tmp_path,
                                                                    tmp_path_factory):
    victim = outside_file(tmp_path_factory, "top secret")
    os.link(victim, tmp_path / "hl.txt")
    (tmp_path / "plain.txt").write_text("plain")
    for name, arguments in [
        ("fs.read", {"path": "hl.txt"}),
        ("fs.write", {"path": "hl.txt", "content": "pwned"}),
        ("fs.append", {"path": "hl.txt", "text": "pwned"}),
        ("fs.patch", {"path": "hl.txt", "diff": "@@ -1 +1 @@\n-top secret\n+pwned\n"}),
        ("fs.copy", {"src": "hl.txt", "dst": "copy.txt"}),
        ("fs.copy", {"src": "plain.txt", "dst": "hl.txt"}),
        ("fs.copy", {"src": ".", "dst": "tree"}),
    ]:
        refused = failure(run, name, **arguments)
        assert refused.code is ErrorCode.PERMISSION_DENIED, (name, refused.message)
        assert "hard links" in refused.message
    assert victim.read_text() == "top secret"
    assert not (tmp_path / "copy.txt").exists() and not (tmp_path / "tree").exists()
    assert run("fs.read", {"allow_hardlinks": True}, path="hl.txt")["content"] == "top secret"


def test_fifos_and_sockets_are_refused_without_blocking(run, tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(tmp_path / "sock"))
    try:
        for name, arguments in [
            ("fs.read", {"path": "pipe"}),
            ("fs.write", {"path": "pipe", "content": "x"}),
            ("fs.append", {"path": "pipe", "text": "x"}),
            ("fs.patch", {"path": "pipe", "diff": "@@ -1 +1 @@\n-a\n+b\n"}),
            ("fs.copy", {"src": "pipe", "dst": "copy"}),
            ("fs.read", {"path": "sock"}),
            ("fs.write", {"path": "sock", "content": "x"}),
        ]:
            outcome = bounded(lambda name=name, arguments=arguments: failure(
                run, name, **arguments), 5, fifos=(fifo,))
            assert outcome.code is ErrorCode.INVALID_ARGS, (name, outcome.message)
            assert "not a regular file" in outcome.message
    finally:
        listener.close()


def test_reading_part_of_a_huge_line_holds_about_the_limit_in_memory(run, tmp_path):
    limit = 256 * 1024
    with open(tmp_path / "one-line.txt", "wb") as handle:
        for _ in range(20):
            handle.write(b"a" * 1024 * 1024)  # 20 MB, no newline
        handle.write(b"\nsecond line\n")
    tracemalloc.start()
    try:
        first = run("fs.read", {"max_read_bytes": limit}, path="one-line.txt",
                    range={"start": 1, "end": 1})
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert first == {"content": "", "lines": 0, "truncated": True, "file_lines_read": 1}
    assert peak < 2 * limit, f"peak {peak} bytes for a {limit}-byte limit"  # was 42 MB
    second = run("fs.read", {"max_read_bytes": limit}, path="one-line.txt",
                 range={"start": 2, "end": 9})
    assert second == {"content": "second line\n", "lines": 1, "truncated": False,
                      "file_lines_read": 2}


def test_append_cannot_grow_a_file_past_the_write_limit(run, tmp_path):
    limits = {"max_write_bytes": 10}
    run("fs.write", limits, path="log.txt", content="12345678")
    refused = failure(run, "fs.append", limits, path="log.txt", text="abc")
    assert refused.code is ErrorCode.QUOTA_EXCEEDED and "11 bytes" in refused.message
    assert (tmp_path / "log.txt").read_text() == "12345678"
    run("fs.append", limits, path="log.txt", text="ab")
    assert (tmp_path / "log.txt").read_text() == "12345678ab"


def test_names_too_long_for_the_file_system_are_invalid_arguments(run):
    name = "x" * 300
    for tool_name, arguments in [
        ("fs.write", {"path": name, "content": "x"}), ("fs.read", {"path": name}),
        ("fs.ls", {"path": name}), ("fs.mkdir", {"path": f"{name}/y"}),
        ("fs.copy", {"src": name, "dst": "y"}), ("search.lexical", {"query": "x",
                                                                     "scope": name}),
    ]:
        refused = failure(run, tool_name, **arguments)
        assert refused.code is ErrorCode.INVALID_ARGS, (tool_name, refused.message)
        assert "longer than the file system allows" in refused.message


def test_copying_a_file_onto_itself_keeps_it(run, tmp_path):
    (tmp_path / "a.txt").write_text("keep me")
    os.symlink("a.txt", tmp_path / "alias.txt")
    for dst in ("a.txt", "alias.txt", "."):
        refused = failure(run, "fs.copy", src="a.txt", dst=dst)
        assert refused.code is ErrorCode.INVALID_ARGS and "same file" in refused.message
    assert (tmp_path / "a.txt").read_text() == "keep me"


def test_patch_reads_within_the_limit_and_only_text(run, tmp_path):
    (tmp_path / "big.txt").write_text("a\n" * 100)
    refused = failure(run, "fs.patch", {"max_read_bytes": 50}, path="big.txt",
                      diff="@@ -1 +1 @@\n-a\n+b\n")
    assert refused.code is ErrorCode.QUOTA_EXCEEDED
    (tmp_path / "latin1.txt").write_bytes(b"caf\xe9\n")
    refused = failure(run, "fs.patch", path="latin1.txt", diff="@@ -1 +1 @@\n-x\n+y\n")
    assert refused.code is ErrorCode.INVALID_ARGS and "not UTF-8" in refused.message
    assert (tmp_path / "latin1.txt").read_bytes() == b"caf\xe9\n"


def test_symlinks_inside_the_root_are_followed(run, tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "real.txt").write_text("real\n")
    os.symlink("l2", tmp_path / "l1")
    os.symlink("sub/l3", tmp_path / "l2")
    os.symlink("../real.txt", tmp_path / "sub" / "l3")
    os.symlink(str(tmp_path / "sub"), tmp_path / "abs-dir")  # absolute, but beneath the root
    assert run("fs.read", path="l1")["content"] == "real\n"
    assert run("fs.write", path="l1", content="changed\n") == {"path": "real.txt", "bytes": 8}
    assert (tmp_path / "real.txt").read_text() == "changed\n"
    assert run("fs.write", path="abs-dir/new.txt", content="n")["path"] == "sub/new.txt"
    assert [e["name"] for e in run("fs.ls", path="abs-dir")] == ["l3", "new.txt"]
    assert {e["name"]: e["type"] for e in run("fs.ls", path=".")}["abs-dir"] == "directory"


def test_write_checks_before_it_truncates(run, tmp_path):
    (tmp_path / "a.txt").write_text("both names are inside")
    os.link(tmp_path / "a.txt", tmp_path / "b.txt")
    assert failure(run, "fs.write", path="a.txt", content="").code is \
        ErrorCode.PERMISSION_DENIED
    assert (tmp_path / "b.txt").read_text() == "both names are inside"


def test_a_missing_workspace_root_is_made_by_writes_and_reported_by_reads(tmp_path):
    root = tmp_path / "workspace"
    context = ToolContext(sandbox=SandboxPolicy(roots=[root]))
    tools = builtin_tools()
    refused = failure(tools.get("fs.read").run, {"path": "a.txt"}, context)
    assert refused.code is ErrorCode.NOT_FOUND and "sandbox root" in refused.message
    assert tools.get("fs.write").run({"path": "notes/a.txt", "content": "hi"}, context) == {
        "path": "notes/a.txt", "bytes": 2}
    assert (root / "notes" / "a.txt").read_text() == "hi"


def test_patch_counts_lines_as_diff_does(run, tmp_path):
    (tmp_path / "ff.txt").write_text("a\x0cb\nc\n")
    assert run("fs.patch", path="ff.txt", diff="@@ -1,2 +1,2 @@\n a\x0cb\n-c\n+d\n")["hunks"] == 1
    assert (tmp_path / "ff.txt").read_text() == "a\x0cb\nd\n"
    assert run("fs.read", path="ff.txt")["lines"] == 2  # fs.read agrees on the count


def test_a_hunk_header_with_absurd_numbers_is_invalid_args(run, tmp_path):
    from autobyteus_like import ErrorCode
    from autobyteus_like.tools import ToolFailure

    (tmp_path / "a.txt").write_text("a\n")
    with pytest.raises(ToolFailure) as caught:
        run("fs.patch", path="a.txt", diff="@@ -" + "9" * 5000 + " +1 @@\n-a\n")
    assert caught.value.code is ErrorCode.INVALID_ARGS
    assert "numbers out of range" in caught.value.message

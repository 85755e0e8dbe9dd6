import pytest

from autobyteus_like import ErrorCode
from autobyteus_like.tools import ToolFailure


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

"""search.vector: real embeddings (WordLlama's bundled model) in a real usearch index kept in
the sandbox's state folder, updated incrementally, walked as search.lexical walks."""

import json
import os
import threading

import pytest

from autobyteus_like import ErrorCode
from autobyteus_like.tools import ToolFailure, builtin_tools

pytest.importorskip("wordllama", reason="search.vector needs the vector extra")
pytest.importorskip("usearch", reason="search.vector needs the vector extra")

RETRY = "# Retries\nThe client retries a failed request with exponential backoff.\n" \
        "It gives up after five attempts.\n"
CATS = "# Cats\nCats sleep most of the day and purr when they are content.\n"


def failure(call, *args, **kwargs) -> ToolFailure:
    with pytest.raises(ToolFailure) as caught:
        call(*args, **kwargs)
    return caught.value


def manifest(root) -> dict:
    return json.loads((root / ".autobyteus" / "vector" / "manifest.json").read_text())


def test_schema_and_manifest_entry():
    definition = builtin_tools().get("search.vector")
    schema = definition.json_schema()
    properties = schema["properties"]
    assert set(properties) == {"query", "scope", "k", "glob"}
    assert schema["required"] == ["query"]
    assert definition.category == "search" and not definition.dangerous


def test_the_closest_passage_comes_first_with_its_lines(run, tmp_path):
    (tmp_path / "retry.md").write_text(RETRY)
    (tmp_path / "cats.md").write_text(CATS)
    found = run("search.vector", query="how often is a failed request tried again", k=2)
    assert [hit["path"] for hit in found] == ["retry.md", "cats.md"]
    assert found[0]["lines"] == [1, 3] and "exponential backoff" in found[0]["snippet"]
    assert found[0]["score"] > found[1]["score"]
    assert run("search.vector", query="animals that purr", k=1)[0]["path"] == "cats.md"


def test_the_index_is_updated_incrementally(run, tmp_path):
    (tmp_path / "retry.md").write_text(RETRY)
    (tmp_path / "cats.md").write_text(CATS)
    run("search.vector", query="cats")
    first = manifest(tmp_path)
    cats_keys = [chunk[0] for chunk in first["files"]["cats.md"]["chunks"]]
    (tmp_path / "retry.md").write_text("# Deploys\nDeploys happen on Fridays at noon.\n")
    os.unlink(tmp_path / "cats.md")
    found = run("search.vector", query="when do we ship releases", k=5)
    second = manifest(tmp_path)
    assert set(second["files"]) == {"retry.md"}  # the deleted file is dropped
    assert [hit["path"] for hit in found] == ["retry.md"]
    assert "Fridays" in found[0]["snippet"]
    new_keys = [chunk[0] for chunk in second["files"]["retry.md"]["chunks"]]
    assert min(new_keys) > max(cats_keys)  # re-embedded under new keys
    run("search.vector", query="again")
    assert manifest(tmp_path) == second  # nothing changed: nothing embedded


def test_a_lost_or_broken_index_is_rebuilt(run, tmp_path):
    (tmp_path / "retry.md").write_text(RETRY)
    run("search.vector", query="retries")
    (tmp_path / ".autobyteus" / "vector" / "index.usearch").write_bytes(b"garbage")
    assert run("search.vector", query="retries")[0]["path"] == "retry.md"


def test_links_out_hard_links_binaries_and_huge_files_are_skipped(run, tmp_path, tmp_path_factory):
    outside = tmp_path_factory.mktemp("outside")
    (outside / "secret.md").write_text("the secret launch code is 0000 retries\n")
    os.symlink(outside / "secret.md", tmp_path / "link.md")
    os.symlink(outside, tmp_path / "linkdir")
    os.link(outside / "secret.md", tmp_path / "hard.md")
    (tmp_path / "binary.md").write_bytes(b"retries\x00\x01\x02")
    (tmp_path / "huge.md").write_text("retries\n" * 2000)
    (tmp_path / "fine.md").write_text(RETRY)
    found = run("search.vector", limits={"max_read_bytes": 4000}, query="retries", k=10)
    assert {hit["path"] for hit in found} == {"fine.md"}
    assert "secret" not in json.dumps(manifest(tmp_path))


def test_scope_glob_and_hostile_arguments(run, tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "retry.md").write_text(RETRY)
    (tmp_path / "retry.txt").write_text(RETRY)
    assert [h["path"] for h in run("search.vector", query="retry", scope="docs")] == \
        ["docs/retry.md"]
    assert [h["path"] for h in run("search.vector", query="retry", glob="*.txt")] == \
        ["retry.txt"]
    assert failure(run, "search.vector", query="x", scope="..").code == \
        ErrorCode.PERMISSION_DENIED
    assert failure(run, "search.vector", query="x", scope="/etc").code == \
        ErrorCode.PERMISSION_DENIED
    assert failure(run, "search.vector", query="x", k=0).code == ErrorCode.INVALID_ARGS
    assert failure(run, "search.vector", query="  ").code == ErrorCode.INVALID_ARGS


def test_results_stay_within_the_output_limit(run, tmp_path):
    for number in range(30):
        (tmp_path / f"note{number}.md").write_text(f"retry policy number {number}\n" * 10)
    found = run("search.vector", limits={"max_output_bytes": 1500}, query="retry", k=30)
    assert "truncated" in found[-1] and len(found) < 30
    assert len(json.dumps(found)) < 3000


def test_two_calls_at_once_share_one_index(run, tmp_path):
    for number in range(20):
        (tmp_path / f"n{number}.md").write_text(f"note {number} about retries\n")
    results: list[object] = []
    threads = [threading.Thread(target=lambda: results.append(
        run("search.vector", query="retries", k=3))) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert len(results) == 2 and all(len(found) == 3 for found in results)
    assert len(manifest(tmp_path)["files"]) == 20


def test_a_cancelled_call_keeps_what_it_embedded(tmp_path):
    from autobyteus_like.tools import SandboxPolicy, ToolContext
    from autobyteus_like.tools._context import CancelFlag

    (tmp_path / "a.md").write_text(RETRY)
    cancel = CancelFlag()
    cancel.set()
    context = ToolContext(sandbox=SandboxPolicy(roots=[tmp_path]), cancelled=cancel)
    error = failure(builtin_tools().get("search.vector").run, {"query": "x"}, context)
    assert error.code == ErrorCode.TIMEOUT


def test_links_planted_in_the_state_folder_are_neither_read_nor_written_through(
        run, tmp_path, tmp_path_factory):
    outside = tmp_path_factory.mktemp("outside")
    (outside / "victim.json").write_text('{"model": "x"}')
    (outside / "victim.idx").write_text("keep me")
    (tmp_path / "retry.md").write_text(RETRY)
    state = tmp_path / ".autobyteus" / "vector"
    state.mkdir(parents=True)
    (state / "manifest.json").symlink_to(outside / "victim.json")
    (state / "index.usearch").symlink_to(outside / "victim.idx")
    assert run("search.vector", query="retries")[0]["path"] == "retry.md"
    assert (outside / "victim.json").read_text() == '{"model": "x"}'
    assert (outside / "victim.idx").read_text() == "keep me"
    assert not (state / "manifest.json").is_symlink()  # replaced by a file of its own


def test_a_state_folder_linked_out_of_the_root_is_refused(run, tmp_path, tmp_path_factory):
    outside = tmp_path_factory.mktemp("outside")
    (tmp_path / "retry.md").write_text(RETRY)
    (tmp_path / ".autobyteus").symlink_to(outside)
    assert failure(run, "search.vector", query="retries").code == ErrorCode.PERMISSION_DENIED
    assert list(outside.iterdir()) == []


def test_each_root_keeps_its_own_index(tmp_path, tmp_path_factory):
    from autobyteus_like.tools import SandboxPolicy, ToolContext

    other = tmp_path_factory.mktemp("other")
    (tmp_path / "a.md").write_text(CATS)
    (other / "a.md").write_text(RETRY)  # the same relative name in the second root
    context = ToolContext(sandbox=SandboxPolicy(roots=[tmp_path, other]))
    search = builtin_tools().get("search.vector")
    first = search.run({"query": "cats"}, context)
    second = search.run({"query": "retries", "scope": str(other)}, context)
    assert "Cats" in first[0]["snippet"] and "Retries" in second[0]["snippet"]
    assert (other / ".autobyteus" / "vector" / "manifest.json").exists()
    assert "Cats" in search.run({"query": "cats"}, context)[0]["snippet"]  # not overwritten


def test_a_call_killed_between_its_two_writes_leaves_a_state_that_is_rebuilt(run, tmp_path):
    (tmp_path / "retry.md").write_text(RETRY)
    run("search.vector", query="retries")
    state = tmp_path / ".autobyteus" / "vector"
    old_manifest = (state / "manifest.json").read_bytes()
    (tmp_path / "retry.md").write_text("# Deploys\nDeploys happen on Fridays.\n")  # one chunk
    run("search.vector", query="deploys")
    # killed after the index was renamed into place, before the manifest was: the new index
    # (new keys) beside the old manifest, and the temporary file of the manifest left behind
    (state / "manifest.json").write_bytes(old_manifest)
    (state / ".manifest.json.0123456789ab").write_bytes(b"half written")
    found = run("search.vector", query="when do we deploy")
    assert found[0]["path"] == "retry.md" and "Fridays" in found[0]["snippet"]
    assert not (state / ".manifest.json.0123456789ab").exists()

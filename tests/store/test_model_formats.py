"""The model_formats table: what auto learned and the eval's verdict, per (provider, base URL,
model), in a session store (both databases) or in the cache file under
$AUTOBYTEUS_LIKE_CACHE."""

from __future__ import annotations

import threading

from autobyteus_like.store._model_formats import (
    CACHE_FILE,
    ModelFormats,
    ModelKey,
    cache_folder,
)

KEY = ModelKey("llamacpp", "http://127.0.0.1:8080/v1", "smollm2")
OTHER = ModelKey("llamacpp", "http://127.0.0.1:9090/v1", "smollm2")


def check_table(table: ModelFormats) -> None:
    assert table.known(KEY) is None
    table.learn(KEY, "xml", "native tool calling failed on this server (HTTP 500)")
    table.judge(KEY, "json", {"json": {"success": 0.75}})
    known = table.known(KEY)
    assert known is not None
    assert (known.learned, known.verdict) == ("xml", "json")
    assert known.learned_reason is not None and "HTTP 500" in known.learned_reason
    assert known.figures == {"json": {"success": 0.75}}
    assert table.known(OTHER) is None  # another server is another entry
    assert not table.forget_learned(KEY, "json")  # not what was learned: kept
    assert table.forget_learned(KEY, "xml")
    known = table.known(KEY)
    assert known is not None and known.learned is None and known.verdict == "json"
    assert known.figures == {"json": {"success": 0.75}}  # the verdict's figures stay
    table.learn(OTHER, "json", "why")
    assert table.forget_learned(OTHER, "json") and table.known(OTHER) is None  # nothing left
    assert [k.key for k in table.all()] == [KEY]
    assert table.forget(KEY) and table.all() == []


def test_the_table_in_a_session_store(store):
    check_table(ModelFormats.in_store(store))


def test_the_cache_file_is_where_the_variable_says(tmp_path, monkeypatch):
    monkeypatch.setenv("AUTOBYTEUS_LIKE_CACHE", str(tmp_path / "cache"))
    assert cache_folder() == tmp_path / "cache"
    table = ModelFormats.cached()
    check_table(table)
    assert (tmp_path / "cache" / CACHE_FILE).exists()


def test_two_threads_learning_at_once_leave_one_entry(tmp_path):
    table = ModelFormats.cached(tmp_path)
    start = threading.Barrier(2)

    def learn(tool_format: str) -> None:
        start.wait()
        ModelFormats.cached(tmp_path).learn(KEY, tool_format, tool_format)

    threads = [threading.Thread(target=learn, args=(f,)) for f in ("xml", "json")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    [known] = table.all()
    assert known.learned in ("xml", "json") and known.learned_reason == known.learned

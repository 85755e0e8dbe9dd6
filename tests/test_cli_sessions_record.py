"""``sessions export | fork | diff`` on the command line: a recorded session made a test (its
module's test run as pytest would; tests/testing/test_export_real_model.py runs one in a pytest
process of its own), forked at a turn, and compared with its fork; ``run --record``."""

from __future__ import annotations

import importlib.util

from autobyteus_like.cli._main import main
from autobyteus_like.store import open_store
from tests.store.test_fork import four_turns


def test_export_fork_and_diff_on_the_command_line(tmp_path, capsys):
    db = str(tmp_path / "team.sessions.db")
    four_turns(db).close()
    assert main(["sessions", "fork", "four", "--at", "2", "--as", "four-b", "--store", db]) == 0
    assert "forked four at turn 2 as four-b" in capsys.readouterr().out
    assert main(["sessions", "diff", "four", "four-b", "--store", db]) == 1
    shown = capsys.readouterr().out
    assert "lead: only four has request 5 and on" in shown, shown
    assert 'note({"text": "n3"}) -> succeeded' in shown
    assert main(["sessions", "diff", "four", "four", "--store", db]) == 0
    assert "do not differ" in capsys.readouterr().out

    folder = tmp_path / "exported"
    assert main(["sessions", "export", "four", "--test", str(folder), "--store", db]) == 0
    spec = importlib.util.spec_from_file_location("exported_test", folder / "test_recorded.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # the exported module, its test called as pytest would
    module.test_session_four_replays(tmp_path / "replayed")
    store = open_store(db)
    try:
        assert {info.name for info in store.sessions()} == {"four", "four-b"}
    finally:
        store.close()


def test_a_run_recorded_with_record_is_exported_and_replays(software_team, tmp_path, capsys):
    assert main(["run", *software_team, "--message", "Build hello.py", "--record", "rec.db",
                 "--yes"]) == 0
    said = capsys.readouterr().err
    name = said.split("recording the run as session ")[1].split()[0]
    assert main(["sessions", "export", name, "--test", "exported", "--store", "rec.db",
                 "--team", software_team[0]]) == 0
    from autobyteus_like.testing import replay_export

    replay_export(tmp_path / "exported", tmp_path / "replay", check_requests=True)

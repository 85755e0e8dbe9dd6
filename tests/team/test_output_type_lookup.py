"""``output_type: "module:Name"`` in a team file is found beside the team file and in the
current folder (as ``--tools`` is), and a miss says where it looked."""

from __future__ import annotations

import sys

import pytest
import yaml

from autobyteus_like.errors import ConfigError
from autobyteus_like.team import TeamConfig


def _team(folder, output_type: str):
    (folder / "team.yaml").write_text(yaml.safe_dump({
        "name": "t", "coordinator": "a", "members": [
            {"name": "a", "llm": {"provider": "scripted", "responses": []},
             "output_type": output_type}]}))
    return folder / "team.yaml"


@pytest.fixture(autouse=True)
def _forget():
    yield
    for name in ("verdicts_beside", "verdicts_here"):
        sys.modules.pop(name, None)


def test_beside_the_team_file(tmp_path, monkeypatch):
    (tmp_path / "teams").mkdir()
    (tmp_path / "teams" / "verdicts_beside.py").write_text(
        "from pydantic import BaseModel\n\n\nclass Verdict(BaseModel):\n    ok: bool\n")
    monkeypatch.chdir(tmp_path)  # not the team's folder
    config = TeamConfig.from_yaml(_team(tmp_path / "teams", "verdicts_beside:Verdict"))
    assert config.members[0].output_type.__name__ == "Verdict"
    assert str(tmp_path / "teams") not in sys.path  # looked there for this import only


def test_in_the_current_folder(tmp_path, monkeypatch):
    (tmp_path / "verdicts_here.py").write_text(
        "from pydantic import BaseModel\n\n\nclass Verdict(BaseModel):\n    ok: bool\n")
    (tmp_path / "teams").mkdir()
    monkeypatch.chdir(tmp_path)
    config = TeamConfig.from_yaml(_team(tmp_path / "teams", "verdicts_here:Verdict"))
    assert config.members[0].output_type.__name__ == "Verdict"


def test_a_miss_says_where_it_looked(tmp_path, monkeypatch):
    (tmp_path / "teams").mkdir()
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError) as raised:
        TeamConfig.from_yaml(_team(tmp_path / "teams", "nowhere_module:Verdict"))
    assert (f"(looked in {tmp_path}, {tmp_path / 'teams'} and on the Python path)"
            in str(raised.value))

"""An exported member whose team file asks every skill of a remote agent (``ask:NAME.*``)
keeps each skill tool it was taught, by the name it was taught, so the replay has them."""

from __future__ import annotations

from autobyteus_like.testing._export import _member


def test_every_skill_of_an_ask_star_entry_is_kept_by_its_taught_name():
    team = {"members": [{"name": "writer", "tools": ["ask:experts.*", "note", "ask:helper"]}]}
    recorded = {name: {"name": name} for name in (
        "ask_experts.summarise", "ask_experts.translate", "note", "ask_helper")}
    entry = _member("writer", list(recorded), [], [], recorded, team)
    assert entry["tools"] == ["ask_experts.summarise", "ask_experts.translate", "note",
                              "ask_helper"]

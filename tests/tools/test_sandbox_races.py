"""Check-then-use races: while a separate process flips ``d`` between a directory inside the
root and a symlink to a directory outside it, as fast as it can, the file tools are called over
and over; nothing outside may ever be read, listed, created or changed.

Each test hammers for at least a fixed time (the race needs many tries; there is no event to
wait for) and on until both sides of the race were seen (a call done and a call refused; on a
loaded machine 1.5 s sometimes saw only one), and the swapper is stopped in a ``finally`` and
reports how many flips it made.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from autobyteus_like.tools import ToolFailure
from tests.tools.sandbox_helpers import call, snapshot, swapping

HAMMER_S = 1.5
HAMMER_CAP_S = 60.0
"""The longest a test hammers while waiting to see both sides of the race."""
SECRET = "SECRET"


@pytest.fixture
def world(tmp_path: Path) -> tuple[Path, Path]:
    root, outside = tmp_path / "root", tmp_path / "outside"
    (root / "d").mkdir(parents=True)
    outside.mkdir()
    (root / "d" / "x.txt").write_text("inside\n")
    (root / "plain.txt").write_text("plain\n")
    (outside / "x.txt").write_text(f"{SECRET}\n")
    (outside / "secret_name.txt").write_text(f"{SECRET}\n")
    return root, outside


def both_sides(outcomes: list[Any]) -> bool:
    """A call was done and a call was refused."""
    return (any(not isinstance(o, Exception) for o in outcomes)
            and any(isinstance(o, Exception) for o in outcomes))


def hammer(world: tuple[Path, Path], action: Callable[[int], Any],
           enough: Callable[[list[Any]], bool] = both_sides) -> list[Any]:
    """Call ``action(i)`` while ``d`` is swapped, for HAMMER_S seconds and then until the
    outcomes are ``enough`` (at most HAMMER_CAP_S); every outcome."""
    root, outside = world
    before = snapshot(outside)
    outcomes: list[Any] = []
    with swapping(root, "d", outside) as flips:
        start = time.monotonic()
        for number in itertools.count():
            elapsed = time.monotonic() - start
            if elapsed > HAMMER_CAP_S or (elapsed > HAMMER_S and enough(outcomes)):
                break
            outcomes.append(action(number))
    assert flips[0] > 100, "the swapper hardly ran; the test proved nothing"
    assert snapshot(outside) == before, "something outside the root changed"
    return outcomes


def split(outcomes: list[Any]) -> tuple[list[Any], list[Any]]:
    done = [o for o in outcomes if not isinstance(o, Exception)]
    refused = [o for o in outcomes if isinstance(o, Exception)]
    for failure in refused:
        assert isinstance(failure, ToolFailure), repr(failure)  # never a raw OSError
    return done, refused


def test_reads_never_return_an_outside_file(world):
    root, _ = world
    reads = [
        lambda: call(root, "fs.read", {"path": "d/x.txt"}),
        lambda: call(root, "fs.read", {"path": "d/x.txt", "range": {"start": 1, "end": 1}}),
        lambda: call(root, "fs.patch", {"path": "d/x.txt",  # its error would quote the line
                                        "diff": "@@ -1 +1 @@\n-nope\n+nope\n"}),
    ]
    outcomes = hammer(world, lambda number: reads[number % len(reads)]())
    assert not [o for o in outcomes if SECRET in str(o)]
    done, refused = split(outcomes)
    assert any(o.get("content") == "inside\n" for o in done) and refused  # both sides raced


def test_writes_never_land_outside(world):
    root, outside = world
    writes = [
        lambda n: call(root, "fs.write", {"path": f"d/new{n}.txt", "content": "w"}),
        lambda n: call(root, "fs.append", {"path": "d/app.txt", "text": "a"}),
        lambda n: call(root, "fs.mkdir", {"path": f"d/sub{n}"}),
        lambda n: call(root, "fs.write", {"path": "d/x.txt", "content": "inside\n"}),
    ]
    outcomes = hammer(world, lambda number: writes[number % len(writes)](number))
    done, refused = split(outcomes)
    assert done and refused
    assert sorted(p.name for p in outside.iterdir()) == ["secret_name.txt", "x.txt"]


def test_copies_never_read_or_write_outside(world):
    root, outside = world
    copies = [
        lambda n: call(root, "fs.copy", {"src": "d/x.txt", "dst": f"got{n}.txt"}),
        lambda n: call(root, "fs.copy", {"src": "plain.txt", "dst": f"d/put{n}.txt"}),
        lambda n: call(root, "fs.copy", {"src": "plain.txt", "dst": "d"}),  # into d
        lambda n: call(root, "fs.copy", {"src": "d", "dst": f"tree{n}"}),
    ]
    outcomes = hammer(world, lambda number: copies[number % len(copies)](number))
    done, refused = split(outcomes)
    assert done and refused
    assert sorted(p.name for p in outside.iterdir()) == ["secret_name.txt", "x.txt"]
    copied = snapshot(root)
    assert not [k for k, v in copied.items() if SECRET.encode() in str(v).encode()
                or "secret_name" in k]


def test_listings_never_show_outside_entries(world):
    root, _ = world
    outcomes = hammer(world, lambda _: call(root, "fs.ls", {"path": "d"}))
    assert not [o for o in outcomes if "secret_name.txt" in str(o)]
    done, refused = split(outcomes)
    assert done and refused


def test_search_never_finds_outside_text(world):
    root, _ = world
    scopes = [".", "d"]
    outcomes = hammer(world, lambda number: call(
        root, "search.lexical", {"query": f"{SECRET}|inside", "scope": scopes[number % 2]}),
        enough=lambda seen: any(o and not isinstance(o, Exception)
                                and o[0]["content"] == "inside" for o in seen))
    assert not [o for o in outcomes if SECRET in str(o)]
    done, _ = split(outcomes)
    assert any(o and o[0]["content"] == "inside" for o in done)


def test_a_command_never_starts_in_an_outside_directory(world):
    root, _ = world
    outcomes = hammer(world, lambda _: call(root, "terminal.run", {"cmd": ["ls"], "cwd": "d"}))
    assert not [o for o in outcomes if "secret_name.txt" in str(o)]
    done, refused = split(outcomes)
    assert any("x.txt" in o["stdout"] for o in done) and refused

"""The released API stays as it is unless a change means it to: every name the public modules
export (``tests/api_snapshot.py`` lists them) with its signature, held against the snapshot."""

import difflib

from tests.api_snapshot import SNAPSHOT, api_lines


def test_the_public_api_is_the_snapshot():
    now = api_lines()
    kept = SNAPSHOT.read_text(encoding="utf-8").splitlines()
    diff = list(difflib.unified_diff(kept, now, "tests/api_snapshot.txt", "the code", lineterm=""))
    assert not diff, ("the public API changed; if that is meant, run `python -m tests.api_snapshot`"
                      " and commit the new snapshot with the change:\n" + "\n".join(diff[:80]))


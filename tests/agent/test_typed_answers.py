"""Every way of getting a typed agent's answer gives the same typed value (``send().result()``
too); examples/typed_agent.py, which this runs, is also what the project's mypy run checks
(``assert_type`` through ``Agent[OutputT]``)."""

from __future__ import annotations

import runpy
from pathlib import Path

EXAMPLE = Path(__file__).parent.parent.parent / "examples" / "typed_agent.py"


def test_every_way_of_getting_the_answer_is_typed():
    example = runpy.run_path(str(EXAMPLE))
    verdict = example["Verdict"]
    assert example["every_way"]() == [verdict(ok=True)] * 4
    assert example["untyped"]() == "hi"

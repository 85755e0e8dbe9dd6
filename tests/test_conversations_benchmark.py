"""The conversations benchmark at a small size, as a check of behaviour (100 conversations,
each answer to its own caller; no timing asserted: its figures are in benchmarks/README.md)."""

from __future__ import annotations

import pytest

from benchmarks.conversations_benchmark import REQUESTS, measure


@pytest.mark.parametrize("mode", ["agents", "team"])
def test_a_hundred_conversations_each_answer_to_its_own_caller(mode):
    figures = measure(mode, 100, latency=0.05, work=0.0005)  # raises on a wrong answer
    assert figures["conversations"] == 100
    assert figures["wall_s"] >= REQUESTS * 0.05  # each conversation waited for its model

"""Result values: cut once with the true length, even when a server cut them before."""

from __future__ import annotations

from autobyteus_like.tools._result_values import capped


def test_a_result_cut_before_keeps_its_true_length_when_cut_again():
    once = capped("y" * 50_000, 1_000)
    assert capped(once, 1_000) is once  # within the limit once its note is set aside
    twice = capped(once, 100)
    assert twice == "y" * 100 + "\n[cut: the result is 50000 characters long; the first 100 " \
                                "are shown]"
    assert capped({"rows": [1, 2]}, 1_000) == {"rows": [1, 2]}
    assert capped({"rows": ["z" * 50] * 10}, 100).startswith('{"rows": ["zz')

"""RetryPolicy: the SDKs' backoff rules, as delays our cancellable wait can use."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from autobyteus_like.llm._retry_policy import RetryPolicy


def test_backoff_doubles_with_jitter_up_to_the_cap():
    policy = RetryPolicy(max_retries=6, initial_delay_s=0.5, max_delay_s=8.0)
    for retry_no, full in [(1, 0.5), (2, 1.0), (3, 2.0), (4, 4.0), (5, 8.0), (6, 8.0)]:
        delay = policy.delay_s(retry_no, None)
        assert delay is not None and 0.75 * full <= delay <= full


def test_the_servers_retry_after_wins_unless_it_is_unreasonable():
    policy = RetryPolicy(max_retries=3)
    assert policy.delay_s(1, 2.5) == 2.5
    assert policy.delay_s(1, 61.0) is None  # asked to wait a minute or more: report now
    zero = policy.delay_s(1, 0.0)  # "retry now" gets the ordinary backoff
    assert zero is not None and 0.375 <= zero <= 0.5


@given(st.integers(min_value=0, max_value=5), st.integers(min_value=1, max_value=10))
def test_never_more_retries_than_allowed(max_retries: int, retry_no: int):
    delay = RetryPolicy(max_retries=max_retries).delay_s(retry_no, None)
    assert (delay is None) == (retry_no > max_retries)


def test_a_negative_retry_count_is_refused():
    with pytest.raises(ValueError, match="max_retries must be 0 or more, got -1"):
        RetryPolicy(max_retries=-1)

"""One finish vocabulary for every provider; what has no common meaning is kept as given."""

from autobyteus_like.llm import _finish_reasons as finish_reasons


def test_each_providers_names_for_the_common_cases():
    assert [finish_reasons.openai(r) for r in ("stop", "length", "tool_calls",
                                               "content_filter", "function_call")] == [
        "stop", "length", "tool_calls", "content_filter", "tool_calls"]
    assert [finish_reasons.anthropic(r) for r in ("end_turn", "stop_sequence", "max_tokens",
                                                  "tool_use", "refusal")] == [
        "stop", "stop", "length", "tool_calls", "content_filter"]
    assert [finish_reasons.gemini(r, False) for r in ("STOP", "MAX_TOKENS", "SAFETY",
                                                      "RECITATION")] == [
        "stop", "length", "content_filter", "content_filter"]


def test_gemini_stop_after_function_calls_is_tool_calls_and_the_rest_is_kept():
    assert finish_reasons.gemini("STOP", True) == "tool_calls"
    assert finish_reasons.gemini("MAX_TOKENS", True) == "length"  # cut off while calling
    assert finish_reasons.gemini("MALFORMED_FUNCTION_CALL", False) == "MALFORMED_FUNCTION_CALL"
    assert finish_reasons.anthropic("pause_turn") == "pause_turn"
    assert finish_reasons.openai(None) is None

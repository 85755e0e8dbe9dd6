"""OpenAIToolCallDecoder: calls assembled from streamed deltas, whichever way a server sends
the name and id (once, repeated in every delta, or in pieces)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from autobyteus_like.llm import NativeToolCall
from autobyteus_like.llm._openai_wire import OpenAIToolCallDecoder
from autobyteus_like.llm._wire_names import WireNames


def delta(index: int, *, id: str | None = None, name: str | None = None,
          arguments: str | None = None) -> dict[str, object]:
    function = {k: v for k, v in (("name", name), ("arguments", arguments)) if v is not None}
    return {"index": index, **({"id": id} if id is not None else {}), "function": function}


def decode(deltas: list[dict[str, object]], tools: tuple[str, ...] = ()) -> tuple[
        NativeToolCall, ...]:
    decoder = OpenAIToolCallDecoder(WireNames(tools))
    for piece in deltas:
        decoder.add([piece])
    return decoder.finish()


def test_a_name_and_id_repeated_in_every_delta_are_taken_once():
    # OpenRouter -> Novita (kimi-k2), as recorded: id and name again with the arguments
    calls = decode([delta(0, id="0", name="llm_version", arguments=""),
                    delta(0, id="0", name="llm_version", arguments="{}")])
    assert calls == (NativeToolCall("0", "llm_version", "{}"),)


def test_openai_style_name_once_and_parallel_calls_by_index():
    calls = decode([delta(0, id="call_1", name="get_weather", arguments=""),
                    delta(1, id="call_2", name="add", arguments='{"a": 1,'),
                    delta(0, arguments='{"city": "Paris"}'),
                    delta(1, arguments=' "b": 2}')], tools=("get_weather", "add"))
    assert calls == (NativeToolCall("call_1", "get_weather", '{"city": "Paris"}'),
                     NativeToolCall("call_2", "add", '{"a": 1, "b": 2}'))


names = st.from_regex(r"[a-z][a-z_]{0,20}", fullmatch=True)


@given(name=names, cuts=st.lists(st.integers(min_value=1, max_value=20), max_size=5))
def test_a_declared_name_sent_in_any_pieces_comes_back_whole(name: str, cuts: list[int]):
    points = sorted({c for c in cuts if c < len(name)})
    pieces = [name[a:b] for a, b in zip([0, *points], [*points, len(name)], strict=True)]
    calls = decode([delta(0, id="call_x", name=piece) for piece in pieces], tools=(name,))
    assert calls == (NativeToolCall("call_x", name, ""),)


@given(name=names, call_id=st.from_regex(r"[A-Za-z0-9_:]{1,12}", fullmatch=True),
       repeats=st.integers(min_value=1, max_value=6), declared=st.booleans())
def test_a_name_and_id_repeated_any_number_of_times_come_back_once(
        name: str, call_id: str, repeats: int, declared: bool):
    deltas = [delta(0, id=call_id, name=name, arguments="{}" if i == repeats - 1 else "")
              for i in range(repeats)]
    calls = decode(deltas, tools=(name,) if declared else ())
    assert calls == (NativeToolCall(call_id, name, "{}"),)

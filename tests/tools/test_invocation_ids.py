"""The id allocator takes whatever arguments a model wrote and never raises."""

from __future__ import annotations

import hashlib
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from autobyteus_like.tools._invocation_ids import InvocationIdAllocator
from tests.stress_rounds import rounds


def deeply_nested(depth: int) -> list:
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


def test_lone_surrogates_in_name_keys_and_values_get_ids_that_tell_them_apart():
    ids = InvocationIdAllocator()
    first = ids.allocate("f\ud800", {"k\udfff": "v\ud800"})
    again = ids.allocate("f\ud800", {"k\udfff": "v\ud800"})
    other = ids.allocate("f\ud800", {"k\udfff": "v\udbff"})
    assert first.startswith("call_") and first.endswith("_1") and again == first[:-2] + "_2"
    assert other[:-2] != first[:-2]
    assert InvocationIdAllocator().allocate("f\ud800", {"k\udfff": "v\ud800"}) == first


def test_arguments_json_cannot_print_still_get_unique_ids():
    ids = InvocationIdAllocator()
    huge = 10**5000  # an int Python holds but will not print (4,300 digits at most)
    deep = deeply_nested(100_000)  # past any recursion limit
    allocated = [ids.allocate("f", {"n": huge}), ids.allocate("f", {"n": huge}),
                 ids.allocate("f", {"x": deep}), ids.allocate("g", {"x": deep})]
    assert len(set(allocated)) == 4 and all(i.startswith("call_") for i in allocated)
    assert allocated[2][:-2] != allocated[3][:-2]  # the name still counts



def dumps_reference(name: str, arguments: dict) -> str:
    """The id's hash as seed 003's allocator has always written it: sha256 of the name and
    ``json.dumps`` of the arguments with the canonical settings."""
    try:
        canonical = json.dumps(arguments, sort_keys=True, separators=(",", ":"),
                               ensure_ascii=False, default=str)
    except (ValueError, TypeError, RecursionError):
        canonical = "\x00"
    key = f"{name}\x00{canonical}".encode("utf-8", "surrogatepass")
    return "call_" + hashlib.sha256(key).hexdigest()[:12]


JSONISH = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True),
              st.text(alphabet=st.characters(exclude_categories=())),
              st.just(0).map(lambda _: 10**5000),  # too long for str(), so built lazily
              st.binary(max_size=3), st.sets(st.integers(), max_size=2)),
    lambda inner: st.one_of(st.lists(inner, max_size=3),
                            st.dictionaries(st.text(max_size=3), inner, max_size=3)),
    max_leaves=10,
)


@settings(max_examples=rounds(100, 300), deadline=None)
@given(name=st.text(max_size=5), arguments=st.dictionaries(st.text(max_size=4), JSONISH,
                                                           max_size=4))
def test_ids_are_the_hash_of_the_canonical_json_dumps_as_ever(name, arguments):
    # The encoder is made once now; the ids must stay exactly what json.dumps gave.
    ids = InvocationIdAllocator()
    assert ids.allocate(name, arguments) == dumps_reference(name, arguments) + "_1"
    assert ids.allocate(name, arguments) == dumps_reference(name, arguments) + "_2"


def test_a_circular_value_gets_the_id_of_any_value_json_cannot_print():
    circular: dict = {}
    circular["self"] = circular
    first = InvocationIdAllocator().allocate("f", {"x": circular})
    assert first == dumps_reference("f", {"x": circular}) + "_1"
    assert first == InvocationIdAllocator().allocate("f", {"n": 10**5000})


def test_a_model_repeating_one_id_gets_sequential_suffixes_in_linear_time():
    """Each repeat of a supplied id continues from the last suffix given (it used to probe
    from _2 every time: 8,000 repeats took 7 s). Counted in membership probes, not seconds, so
    a loaded machine cannot fail it: quadratic probing would make ~n²/2 of them."""

    class CountingSet(set[str]):
        probes = 0

        def __contains__(self, item: object) -> bool:
            CountingSet.probes += 1
            return super().__contains__(item)

    allocator = InvocationIdAllocator()
    assert [allocator.claim("dup") for _ in range(4)] == ["dup", "dup_2", "dup_3", "dup_4"]

    n = 5_000
    fresh = InvocationIdAllocator()
    fresh._used = CountingSet()
    ids = [fresh.claim("same") for _ in range(n)]
    assert len(set(ids)) == n
    assert CountingSet.probes <= 3 * n, CountingSet.probes

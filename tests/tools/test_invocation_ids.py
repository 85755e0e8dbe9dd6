"""The id allocator takes whatever arguments a model wrote and never raises."""

from __future__ import annotations

from autobyteus_like.tools.invocation_ids import InvocationIdAllocator


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


import pytest
from pydantic import ValidationError

from autobyteus_like import ErrorCode, ToolInvocation, ToolResult
from autobyteus_like.tools._invocation_ids import InvocationIdAllocator


def test_models_are_immutable_and_results_carry_errors():
    call = ToolInvocation(id="c1", name="read", arguments={"path": "a"}, why="check the config")
    with pytest.raises(ValidationError):
        call.name = "other"  # type: ignore[misc]
    ok = ToolResult.success(call, {"bytes": 3})
    assert (ok.status, ok.content, ok.error) == ("success", {"bytes": 3}, None)
    failed = ToolResult.failure(call, ErrorCode.NOT_FOUND, "no such file: a",
                                suggestion="check the path")
    assert failed.error is not None
    assert failed.error.model_dump() == {"code": ErrorCode.NOT_FOUND, "message": "no such file: a",
                                         "recoverable": True, "suggestion": "check the path"}


def test_result_status_and_error_must_agree_and_content_must_be_json():
    with pytest.raises(ValidationError, match="needs an error"):
        ToolResult(invocation_id="c", tool_name="t", status="failure")
    with pytest.raises(ValidationError):
        ToolResult(invocation_id="c", tool_name="t", status="success", content=object())


def test_ids_are_deterministic_and_unique_per_session():
    first, second = InvocationIdAllocator(), InvocationIdAllocator()
    a1 = first.allocate("read", {"path": "a", "n": 1})
    a2 = first.allocate("read", {"n": 1, "path": "a"})  # same call again, keys reordered
    assert a1.endswith("_1") and a2.endswith("_2") and a1[:-2] == a2[:-2]
    assert second.allocate("read", {"path": "a", "n": 1}) == a1  # deterministic across sessions
    assert first.allocate("read", {"path": "b"})[:-2] != a1[:-2]
    assert first.claim("call_x") == "call_x"
    assert first.claim("call_x") == "call_x_2"


def test_a_trusted_success_is_what_model_construct_makes():
    import pickle

    from autobyteus_like.tools._image_content import ImageContent

    call = ToolInvocation(id="call_1", name="read", arguments={"path": "a"})
    for content, images in [("ok", ()), ({"rows": [1, 2]}, (ImageContent(
            b"\x89PNG\r\n\x1a\n", "image/png"),)), (None, ())]:
        fast = ToolResult.trusted_success(call, content, images)
        reference = ToolResult.model_construct(
            invocation_id="call_1", tool_name="read", status="success", content=content,
            error=None, images=images)
        assert type(fast) is ToolResult and fast == reference
        assert fast.__dict__ == reference.__dict__
        assert fast.model_fields_set == reference.model_fields_set
        assert fast.__pydantic_extra__ == reference.__pydantic_extra__
        assert fast.__pydantic_private__ == reference.__pydantic_private__
        assert fast.model_dump() == reference.model_dump()
        assert fast.model_dump(exclude_unset=True) == reference.model_dump(exclude_unset=True)
        assert repr(fast) == repr(reference)
        assert pickle.loads(pickle.dumps(fast)) == reference
        with pytest.raises(ValidationError):
            fast.content = "changed"

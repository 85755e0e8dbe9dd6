from autobyteus_like import ErrorCode, ToolInvocation, ToolResult, tool
from autobyteus_like.tools._redaction import REDACTED, redact_invocation, redact_result


@tool(result_allowlist=("id",), masked_arguments=("secret",))
def lookup(query: str, secret: str) -> object:
    """Look things up."""
    return [{"id": 1, "owner": "x"}]


def test_lists_scalars_failures_and_untouched_tools():
    call = ToolInvocation(id="c", name="lookup", arguments={"query": "q", "secret": "s"})
    assert redact_invocation(call, lookup).arguments == {"query": "q", "secret": REDACTED}
    assert redact_invocation(call, None) is call
    listed = ToolResult.success(call, [{"id": 1, "owner": "x"}, "plain"])
    assert redact_result(listed, lookup).content == [{"id": 1, "owner": REDACTED}, REDACTED]
    failed = ToolResult.failure(call, ErrorCode.NOT_FOUND, "gone")
    assert redact_result(failed, lookup) is failed  # errors are shown as they are

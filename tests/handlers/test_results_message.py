"""A response's results become the next message in one place, for a turn and for a resume."""

from __future__ import annotations

import ast
from pathlib import Path

from autobyteus_like.formats._registry import builtin_format
from autobyteus_like.handlers._results_message import results_message
from autobyteus_like.tools._image_content import ImageContent
from autobyteus_like.tools._invocation import ErrorCode, ToolInvocation, ToolResult

HANDLERS = Path(__file__).resolve().parents[2] / "autobyteus_like" / "handlers"
CALLS = (ToolInvocation(id="c1", name="look", arguments={"at": "x"}),
         ToolInvocation(id="c2", name="write", arguments={"text": "y"}))
PNG = ImageContent(b"\x89PNG\r\n\x1a\n", "image/png")
RESULTS = (ToolResult.trusted_success(CALLS[0], "seen", images=(PNG,)),
           ToolResult.failure(CALLS[1], ErrorCode.DENIED, "no", started=False))


def test_native_results_are_one_tool_message_of_structured_results():
    message = results_message(builtin_format("native"), CALLS, RESULTS)
    assert (message.role, message.content, message.tool_results) == ("tool", "", RESULTS)


def test_text_results_are_rendered_in_invocation_order_with_their_images():
    message = results_message(builtin_format("json"), CALLS, RESULTS)
    assert message.role == "user" and message.tool_results == RESULTS
    assert message.images == (PNG,)
    assert "seen" in message.content and "no" in message.content
    assert message.content.index("seen") < message.content.index("no")


def test_no_other_module_of_the_turn_machine_builds_a_results_message():
    builders = sorted(
        path.name for path in HANDLERS.glob("*.py") if path.name != "_results_message.py"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if (isinstance(node, ast.Call) and ast.unparse(node.func).endswith("render_results"))
        or (isinstance(node, ast.Call) and ast.unparse(node.func) == "Message" and node.args
        and isinstance(node.args[0], ast.Constant) and node.args[0].value == "tool"))
    assert not builders, f"results made a message outside results_message: {builders}"

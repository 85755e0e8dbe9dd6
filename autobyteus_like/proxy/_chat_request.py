"""A Chat Completions request body as our ``LLMRequest``: the system messages as the system
prompt, the tools as definitions (their JSON schemas as given), earlier ``assistant.tool_calls``
as calls and ``tool`` messages as their results, ``tool_choice`` and ``parallel_tool_calls`` as
call rules. A body that cannot be read is a ``BadRequestError`` (HTTP 400) saying where."""

from __future__ import annotations

import json
from typing import Any

from autobyteus_like.errors import BadRequestError
from autobyteus_like.llm._messages import LLMRequest, Message
from autobyteus_like.tools._call_rules import CallRules, ToolChoice
from autobyteus_like.tools._definition import ToolDefinition
from autobyteus_like.tools._invocation import ToolInvocation, ToolResult

__all__ = ["chat_request"]


def _text(content: Any, where: str) -> str:
    """A message's content as text (a list of parts: their text parts joined)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if not isinstance(part, dict) or part.get("type") != "text":
                raise BadRequestError(f"{where}: only text content is carried to a model "
                                        "taught tools in a text format")
            parts.append(str(part.get("text", "")))
        return "".join(parts)
    raise BadRequestError(f"{where}: content must be a string or a list of parts")


def _not_called(name: str) -> Any:
    def refuse(**_: Any) -> Any:
        raise RuntimeError(f"the proxy never runs {name}: its client does")
    return refuse


def _tools(body: dict[str, Any]) -> tuple[ToolDefinition, ...]:
    tools = body.get("tools") or []
    if not isinstance(tools, list):
        raise BadRequestError("tools: must be a list")
    found = []
    for index, tool in enumerate(tools):
        function = tool.get("function") if isinstance(tool, dict) else None
        if not isinstance(function, dict) or tool.get("type", "function") != "function" or \
                not isinstance(function.get("name"), str):
            raise BadRequestError(f"tools[{index}]: expected a function with a name")
        schema = function.get("parameters") or {"type": "object", "properties": {}}
        name = function["name"]
        try:
            found.append(ToolDefinition(
                name=name, description=str(function.get("description") or name),
                arguments_model=None, function=_not_called(name), input_schema=schema))
        except Exception as exc:  # a name or schema no format can teach
            raise BadRequestError(f"tools[{index}] ({name!r}): {exc}") from None
    return tuple(found)


def _rules(body: dict[str, Any]) -> CallRules:
    choice = body.get("tool_choice")
    parsed: ToolChoice | None = None
    if isinstance(choice, dict):
        name = (choice.get("function") or {}).get("name")
        if not isinstance(name, str):
            raise BadRequestError("tool_choice: expected {type: function, function: {name}}")
        parsed = ToolChoice("tool", name)
    elif isinstance(choice, str):
        try:
            parsed = ToolChoice.parse(choice)
        except ValueError as exc:
            raise BadRequestError(f"tool_choice: {exc}") from None
    elif choice is not None:
        raise BadRequestError("tool_choice: expected a string or an object")
    parallel = body.get("parallel_tool_calls")
    return CallRules(parsed, parallel if isinstance(parallel, bool) else None)


def _arguments(raw: Any, where: str) -> dict[str, Any]:
    if isinstance(raw, dict):
        return raw
    try:
        value = json.loads(raw or "{}")
    except (TypeError, ValueError):
        raise BadRequestError(f"{where}: arguments are not JSON") from None
    if not isinstance(value, dict):
        raise BadRequestError(f"{where}: arguments must be a JSON object")
    return value


def chat_request(body: dict[str, Any]) -> LLMRequest:
    """The request ``body`` describes, with its tools and rules."""
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise BadRequestError("messages: must be a non-empty list")
    system: list[str] = []
    out: list[Message] = []
    names: dict[str, str] = {}
    for index, message in enumerate(messages):
        where = f"messages[{index}]"
        if not isinstance(message, dict):
            raise BadRequestError(f"{where}: must be an object")
        role = message.get("role")
        if role in ("system", "developer"):
            system.append(_text(message.get("content"), where))
        elif role == "user":
            out.append(Message("user", _text(message.get("content"), where)))
        elif role == "assistant":
            calls = []
            for position, call in enumerate(message.get("tool_calls") or []):
                found = call.get("function") if isinstance(call, dict) else None
                function: dict[str, Any] = found if isinstance(found, dict) else {}
                call_id = call.get("id") if isinstance(call, dict) else None
                name = function.get("name")
                if not isinstance(call_id, str) or not isinstance(name, str):
                    raise BadRequestError(f"{where}.tool_calls[{position}]: needs an id "
                                            "and a function name")
                names[call_id] = name
                calls.append(ToolInvocation(id=call_id, name=name, arguments=_arguments(
                    function.get("arguments"), f"{where}.tool_calls[{position}]")))
            out.append(Message("assistant", _text(message.get("content"), where),
                               tool_calls=tuple(calls)))
        elif role == "tool":
            call_id = message.get("tool_call_id")
            if not isinstance(call_id, str):
                raise BadRequestError(f"{where}: a tool message needs its tool_call_id")
            result = ToolResult(invocation_id=call_id, tool_name=names.get(call_id, "unknown"),
                                status="success", content=_text(message.get("content"), where))
            if out and out[-1].role == "tool":  # one message per batch of results
                out[-1] = Message("tool", "", tool_results=(*out[-1].tool_results, result))
            else:
                out.append(Message("tool", "", tool_results=(result,)))
        else:
            raise BadRequestError(f"{where}: unknown role {role!r}")
    return LLMRequest("\n\n".join(system), tuple(out), _tools(body), rules=_rules(body))

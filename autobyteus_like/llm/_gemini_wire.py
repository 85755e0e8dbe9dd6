"""The Gemini wire format (seed 002 adapters): contents and function declarations from our
messages and tool definitions. Gemini streams each function call whole, with its args."""

from __future__ import annotations

import json
from typing import Any

from autobyteus_like.llm._messages import LLMRequest
from autobyteus_like.llm._wire_images import gemini_image
from autobyteus_like.llm._wire_names import WireNames
from autobyteus_like.tools._call_rules import CallRules, ToolChoice
from autobyteus_like.tools._invocation import ToolResult

__all__ = ["encode_contents", "encode_rules", "encode_tools", "function_response"]


def function_response(result: ToolResult) -> dict[str, Any]:
    """A result as Gemini's ``response`` object (it must be an object)."""
    if result.status == "failure" and result.error is not None:
        error = result.error.model_dump(mode="json", exclude={"recoverable"}, exclude_none=True)
        return {"error": error}
    return {"result": result.content}


def encode_tools(request: LLMRequest, names: WireNames) -> list[dict[str, Any]]:
    """One ``tools`` entry with a function declaration per tool, full JSON Schema kept."""
    return [{"function_declarations": [
        {"name": names.wire(tool.name), "description": tool.description,
         "parameters_json_schema": tool.shared_inline_schema}
        for tool in request.tools
    ]}]


def encode_rules(rules: CallRules, names: WireNames) -> dict[str, Any]:
    """``tool_config``: ``function_calling_config`` mode ``AUTO``, ``ANY`` (required, or one
    named tool, then the only allowed name) or ``NONE``. Gemini has no one-call switch."""
    choice = rules.choice or ToolChoice()
    mode = {"auto": "AUTO", "required": "ANY", "tool": "ANY", "none": "NONE"}[choice.mode]
    config: dict[str, Any] = {"mode": mode}
    if choice.mode == "tool" and choice.name:
        config["allowed_function_names"] = [names.wire(choice.name)]
    return {"function_calling_config": config}


def encode_contents(request: LLMRequest, names: WireNames) -> list[dict[str, Any]]:
    """The conversation as Gemini contents: the model's calls as ``function_call`` parts, the
    results as ``function_response`` parts of one user turn, in invocation order."""
    contents: list[dict[str, Any]] = []
    for message in request.messages:
        if message.role == "tool":
            contents.append({"role": "user", "parts": [
                *({"function_response": {"id": result.invocation_id,
                                         "name": names.wire(result.tool_name),
                                         "response": function_response(result)}}
                  for result in message.tool_results),
                *(gemini_image(image) for result in message.tool_results
                  for image in result.images),  # the images the responses name follow them
            ]})
        elif message.role == "assistant":
            parts: list[dict[str, Any]] = []
            if message.content.strip():
                parts.append({"text": message.content})
            parts.extend(
                {"function_call": {"id": call.id, "name": names.wire(call.name),
                                   "args": call.arguments}}
                for call in message.tool_calls
            )
            contents.append({"role": "model", "parts": parts or [{"text": ""}]})
        else:
            contents.append({"role": "user", "parts": [
                *([{"text": message.content}] if message.content or not message.images else []),
                *(gemini_image(image) for image in message.images)]})
    return contents


def arguments_text(args: Any) -> str:
    """Gemini's args object as the JSON text the rest of the pipeline reads."""
    return json.dumps(args if args is not None else {}, ensure_ascii=False)

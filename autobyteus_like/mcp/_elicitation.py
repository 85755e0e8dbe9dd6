"""Elicitation: a server asks the person using it for input (``elicitation/create``).

The request goes to the toolset's ``on_elicitation`` handler, the same kind of callback a
person answers approvals with. Safe by default:

* no handler: declined at once (nobody is there to ask);
* the server's ``requestedSchema`` must be what the MCP specification allows (an object of
  flat string, number, integer, boolean or enum properties); anything else is declined without
  asking;
* the handler answers ``None`` (decline), ``False`` (cancel) or the content, which is validated
  against the schema: content that does not fit is declined, never sent;
* no answer within ``elicitation_timeout_s`` is a decline, never a hang;
* a URL-mode request (send the person to a web page) is declined: nothing here opens pages.
"""

from __future__ import annotations

import concurrent.futures
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from loguru import logger

__all__ = ["Answer", "ElicitationHandler", "ElicitationRequest", "WaitingElicitation",
           "elicitation_callback"]

_PRIMITIVES = {"string", "number", "integer", "boolean"}
_MAX_PROPERTIES = 64
_MAX_MESSAGE_CHARS = 4_000


@dataclass(frozen=True)
class ElicitationRequest:
    """What a server asks for: ``message`` to show, and the JSON Schema the answer must fit.
    ``calls``: the agents' calls to that server in flight when it asked, as (agent, call id)
    (MCP does not say which one asked); ``timeout_s``: when it is declined unanswered."""

    server: str
    message: str
    schema: dict[str, Any] = field(default_factory=dict)
    calls: tuple[tuple[str, str], ...] = ()
    timeout_s: float = 300.0


ElicitationHandler = Callable[[ElicitationRequest], "dict[str, Any] | bool | None"]
"""Called on a worker thread; returns the content (accept), None (decline) or False (cancel)."""


def schema_problem(schema: Any) -> str | None:
    """Why ``schema`` is not an elicitation schema the specification allows, or None."""
    if not isinstance(schema, dict) or schema.get("type") != "object":
        return "the requested schema is not an object schema"
    properties = schema.get("properties")
    if not isinstance(properties, dict) or len(properties) > _MAX_PROPERTIES:
        return f"the requested schema needs 1 to {_MAX_PROPERTIES} properties"
    for name, spec in properties.items():
        kind = spec.get("type") if isinstance(spec, dict) else None
        if kind == "array" and isinstance(spec.get("items"), dict):  # multi-select enums
            continue
        if kind not in _PRIMITIVES:
            return f"property {name!r} is not a string, number, integer, boolean or enum"
    return None


def answer_problem(schema: dict[str, Any], content: Any) -> str | None:
    """Why ``content`` does not fit ``schema``, or None."""
    import jsonschema

    if not isinstance(content, dict):
        return "the answer is not an object"
    try:
        jsonschema.validate(content, schema)
    except jsonschema.ValidationError as exc:
        return exc.message
    except jsonschema.SchemaError as exc:
        return f"the schema is not valid: {exc.message}"
    return None


def elicitation_callback(server: str, handler: ElicitationHandler | None, timeout_s: float,
                         in_flight: Callable[[], tuple[tuple[str, str], ...]] | None = None
                         ) -> Any:
    """The SDK ``elicitation_callback`` for ``server`` (always given, so a server's request is
    answered by our rules, never by the SDK's default); ``in_flight()``: the agents' calls to
    the server running now."""
    from mcp_types import ElicitResult

    decline = ElicitResult(action="decline")

    async def elicit(context: Any, params: Any) -> Any:
        if getattr(params, "mode", "form") == "url":
            logger.info("mcp server {}: a URL elicitation was declined", server)
            return decline
        schema = params.requested_schema
        if hasattr(schema, "model_dump"):
            schema = schema.model_dump(by_alias=True, exclude_none=True)
        problem = schema_problem(schema)
        if handler is None or problem is not None:
            logger.info("mcp server {}: an elicitation was declined: {}", server,
                        problem or "nobody to ask")
            return decline
        request = ElicitationRequest(server, str(params.message)[:_MAX_MESSAGE_CHARS], schema,
                                     in_flight() if in_flight is not None else (), timeout_s)
        answer: Any = None
        import anyio  # the SDK's, loaded with it: the base install has no anyio

        with anyio.move_on_after(timeout_s) as scope:
            answer = await anyio.to_thread.run_sync(handler, request,
                                                    abandon_on_cancel=True)
        if scope.cancelled_caught:
            logger.info("mcp server {}: nobody answered an elicitation within {:g} s; "
                        "declined", server, timeout_s)
            return decline
        if answer is None or answer is True:
            return decline
        if answer is False:
            return ElicitResult(action="cancel")
        problem = answer_problem(schema, answer)
        if problem is not None:
            logger.warning("mcp server {}: the answer to an elicitation did not fit its "
                           "schema ({}); declined", server, problem)
            return decline
        return ElicitResult(action="accept", content=answer)

    return elicit


Answer = dict[str, Any] | bool | None
"""A person's answer to an elicitation: the content (accepted), False (declined), None
(cancelled or not answered)."""


@dataclass(eq=False)
class WaitingElicitation:
    """An elicitation waiting for a person's answer on another thread; given once."""

    request: ElicitationRequest
    answer: concurrent.futures.Future[Answer] = field(default_factory=concurrent.futures.Future)

    def settle(self, answer: Answer) -> bool:
        """Give the answer (whether it was still awaited: not timed out nor settled)."""
        try:
            self.answer.set_result(answer)
        except concurrent.futures.InvalidStateError:
            return False
        return True

"""The web server's routes (Starlette): the page, the AG-UI event stream and run endpoint, and
the page's commands.

- ``GET /``: the page (its CSS and script inlined, allowed by hash in a strict
  Content-Security-Policy: nothing else runs, nothing is loaded from elsewhere).
- ``GET /events``: every event of the server's runs as AG-UI over SSE, numbered; a client
  that reconnects with ``Last-Event-ID`` (or ``?last_event_id=``) gets what it missed, once.
- ``POST /agui`` (and ``POST /``, so the printed URL is an AG-UI agent's URL): the standard
  AG-UI run endpoint: a ``RunAgentInput`` whose last user message is given to the
  coordinator; the answer is that run's events over SSE.
- ``POST /api/run`` (``{"message": ...}``, or ``{"resume": true}`` to go on with what a
  session left unfinished), ``/api/abandon`` (``{"reason": ...}``: end it instead),
  ``/api/approve``, ``/api/deny`` (``{"tool_call_id": "member:id"}``, the id the events
  show, or ``{"member": ..., "call_id": ...}``; a denial may add ``"reason"``), ``/api/stop``,
  ``/api/elicitation`` (``{"id": ..., "action": "accept" | "decline" | "cancel", "content":
  {...}}``: the answer to an MCP server's question, ``web/_elicitations.py``):
  the page's commands (JSON in, JSON out; 409 with the reason when refused, 400 when the
  request itself is wrong).
- ``GET /api/state``, ``/api/history``: the team, the calls waiting, a session's stored history.

Every request passes ``AccessGuard`` (token and Host) first; commands are POSTs only.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from collections.abc import AsyncIterator
from importlib.resources import files
from typing import Any

from ag_ui.core import RunAgentInput
from pydantic import ValidationError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from autobyteus_like.errors import BadRequestError, DecisionRefusedError, RunRefusedError
from autobyteus_like.web._access_guard import AccessGuard
from autobyteus_like.web._session_history import stored_history
from autobyteus_like.web._team import WebTeam

__all__ = ["build_app"]

_MAX_BODY = 1_000_000
_SSE_HEADERS = {"x-accel-buffering": "no"}


def _page() -> tuple[str, str]:
    """The page with its CSS and script inlined, and the CSP that allows exactly those."""
    folder = files("autobyteus_like.web") / "page"
    html = (folder / "index.html").read_text(encoding="utf-8")
    css = (folder / "page.css").read_text(encoding="utf-8")
    script = (folder / "page.js").read_text(encoding="utf-8")

    def digest(text: str) -> str:
        return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"

    page = html.replace("/*STYLE*/", css).replace("/*SCRIPT*/", script)
    policy = (f"default-src 'none'; script-src {digest(script)}; style-src {digest(css)}; "
              "connect-src 'self'; img-src 'none'; base-uri 'none'; form-action 'none'; "
              "frame-ancestors 'none'")
    return page, policy


async def _json_body(request: Request) -> dict[str, Any]:
    too_big = BadRequestError(f"the request body is over {_MAX_BODY} bytes", 413)
    declared = request.headers.get("content-length", "0")
    if declared.isdigit() and int(declared) > _MAX_BODY:
        raise too_big
    body = b""
    async for chunk in request.stream():  # read no further than the limit, whatever is sent
        body += chunk
        if len(body) > _MAX_BODY:
            raise too_big
    try:
        data = json.loads(body or b"{}")
    except ValueError as exc:
        raise BadRequestError(f"the request body is not JSON: {exc}") from None
    except RecursionError:
        raise BadRequestError("the request body is JSON nested too deeply to read") from None
    if not isinstance(data, dict):
        raise BadRequestError("the request body must be a JSON object")
    return data


def _text_field(data: dict[str, Any], name: str, required: bool = True) -> str:
    value = data.get(name, "" if not required else None)
    if not isinstance(value, str) or (required and not value):
        raise BadRequestError(f"{name!r} must be a non-empty string")
    return value


def _call_key(data: dict[str, Any]) -> tuple[str, str]:
    """The call a decision is about: ``tool_call_id`` as its events show it
    (``member:id``), or the member's own ``call_id`` with its ``member``."""
    if "tool_call_id" in data:
        wire = _text_field(data, "tool_call_id")
        member, colon, call_id = wire.partition(":")
        if not colon or not member or not call_id:
            raise BadRequestError(f"'tool_call_id' is the id the events show, 'member:id' "
                                  f"(such as 'lead:call_1'), not {wire!r}; a member's own id "
                                  "goes in 'call_id', with 'member'")
        if data.get("member") not in (None, member):
            raise BadRequestError(f"'tool_call_id' {wire!r} is a call of {member!r}, not of "
                                  f"'member' {data['member']!r}")
        return member, call_id
    return _text_field(data, "member"), _text_field(data, "call_id")


_EVENT_ID = re.compile(r"[0-9]{1,18}")


def _last_user_text(run: RunAgentInput) -> str:
    for message in reversed(run.messages):
        if getattr(message, "role", None) == "user":
            content = getattr(message, "content", "")
            if isinstance(content, str):
                return content
            return "\n".join(part.text for part in content if hasattr(part, "text"))
    raise BadRequestError("RunAgentInput.messages has no user message to give the team")


def build_app(team: WebTeam, token: str, hosts: set[str] | None) -> AccessGuard:
    """The ASGI app serving ``team``, behind the guard."""
    page, policy = _page()
    history = stored_history(team.host.session)

    async def index(request: Request) -> Response:
        return HTMLResponse(page, headers={"content-security-policy": policy})

    async def state(request: Request) -> Response:
        return JSONResponse({**team.state(), "waiting": team.waiting()})

    async def session_history(request: Request) -> Response:
        return JSONResponse(history)

    def stream(frames: AsyncIterator[bytes]) -> StreamingResponse:
        return StreamingResponse(frames, media_type="text/event-stream", headers=_SSE_HEADERS)

    async def events(request: Request) -> Response:
        last = request.headers.get("last-event-id") or request.query_params.get(
            "last_event_id") or "0"
        if not _EVENT_ID.fullmatch(last):
            shown = last if len(last) <= 40 else f"{last[:40]}... ({len(last)} characters)"
            return JSONResponse({"error": f"Last-Event-ID must be an event's number (digits "
                                          f"0-9, at most 18), not {shown!r}"}, 400)
        return stream(team.log.frames(after=int(last)))

    async def agui_run(request: Request) -> Response:
        body = await _json_body(request)
        try:
            run = RunAgentInput.model_validate(body)
        except RecursionError:
            raise BadRequestError("the RunAgentInput is nested too deeply to read") from None
        except ValidationError as exc:
            raise BadRequestError(f"not a RunAgentInput: {exc.errors()[0]['msg']} at "
                              f"{'.'.join(map(str, exc.errors()[0]['loc']))}") from None
        message = _last_user_text(run)
        after = team.log.last_id
        run_id = team.start_run(message, run.run_id, run.thread_id)
        return stream(team.log.frames(after=after, run_id=run_id, until_end=True))

    async def start(request: Request) -> Response:
        data = await _json_body(request)
        message = None if data.get("resume") is True else _text_field(data, "message")
        return JSONResponse({"run_id": team.start_run(message)}, 202)

    async def approve(request: Request) -> Response:
        data = await _json_body(request)
        return JSONResponse({"done": await team.decide(*_call_key(data), True)})

    async def deny(request: Request) -> Response:
        data = await _json_body(request)
        done = await team.decide(*_call_key(data), False,
                                 _text_field(data, "reason", required=False))
        return JSONResponse({"done": done})

    async def elicitation(request: Request) -> Response:
        data = await _json_body(request)
        content = data.get("content", {})
        return JSONResponse({"done": team.questions.answer(
            _text_field(data, "id"), _text_field(data, "action"), content)})

    async def abandon(request: Request) -> Response:
        data = await _json_body(request)
        return JSONResponse({"run_id": await team.abandon(_text_field(data, "reason"))})

    async def stop(request: Request) -> Response:
        return JSONResponse({"stopped": await team.stop()})

    async def refused(request: Request, exc: Exception) -> Response:
        status = 409 if isinstance(exc, RunRefusedError | DecisionRefusedError) else getattr(
            exc, "status", 400)
        return JSONResponse({"error": str(exc)}, status)

    app = Starlette(routes=[
        Route("/", index, methods=["GET"]),
        Route("/", agui_run, methods=["POST"]),  # the printed URL is an AG-UI agent's URL too
        Route("/api/state", state),
        Route("/api/history", session_history),
        Route("/events", events),
        Route("/agui", agui_run, methods=["POST"]),
        Route("/api/run", start, methods=["POST"]),
        Route("/api/approve", approve, methods=["POST"]),
        Route("/api/deny", deny, methods=["POST"]),
        Route("/api/abandon", abandon, methods=["POST"]),
        Route("/api/elicitation", elicitation, methods=["POST"]),
        Route("/api/stop", stop, methods=["POST"]),
    ], exception_handlers={RunRefusedError: refused, DecisionRefusedError: refused,
                           BadRequestError: refused})
    return AccessGuard(app, token, hosts)

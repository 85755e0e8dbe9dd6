"""The web server's door: every request needs the server's token and a Host it answers to.

The token (random, printed in the URL as ``?token=...``, as Jupyter does) comes in the query or
as ``Authorization: Bearer``; anything else is refused with 403 before any route runs. The
``Host`` header must name the address the server listens on (``localhost`` too, for a loopback
address), so a page of another site that rebinds its name to 127.0.0.1 is refused as well.
Every answer says not to cache it, not to sniff its type and not to leak the URL as a referrer.
"""

from __future__ import annotations

import hmac
from collections.abc import Iterable
from urllib.parse import parse_qs

from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["AccessGuard", "allowed_hosts"]

_HEADERS = [(b"cache-control", b"no-store"), (b"x-content-type-options", b"nosniff"),
            (b"referrer-policy", b"no-referrer"), (b"x-frame-options", b"DENY")]
_LOOPBACK = {"127.0.0.1", "::1", "localhost"}
_WILDCARD = {"0.0.0.0", "::", ""}


def allowed_hosts(host: str, port: int) -> set[str] | None:
    """The ``Host`` values a server bound to ``host:port`` answers to (None: any, for a
    server bound to every address, where the token alone guards it)."""
    if host in _WILDCARD:
        return None
    names = _LOOPBACK if host in _LOOPBACK else {host}
    return {f"[{name}]:{port}" if ":" in name else f"{name}:{port}" for name in names}


class AccessGuard:
    """ASGI middleware refusing (403) a request without the token or with a foreign Host."""

    def __init__(self, app: ASGIApp, token: str, hosts: Iterable[str] | None) -> None:
        self.app = app
        self._token = token.encode()
        self._hosts = None if hosts is None else {h.lower() for h in hosts}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers", []))
        problem = self._problem(scope, headers)
        if problem is not None:
            await _refuse(send, problem)
            return

        async def send_guarded(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *_HEADERS]}
            await send(message)

        await self.app(scope, receive, send_guarded)

    def _problem(self, scope: Scope, headers: dict[bytes, bytes]) -> str | None:
        host = headers.get(b"host", b"").decode("latin-1").lower()
        if self._hosts is not None and host not in self._hosts:
            return f"this server does not answer to Host {host!r}"
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        given = query.get("token", [""])[-1].encode()
        authorization = headers.get(b"authorization", b"")
        if authorization[:7].lower() == b"bearer ":
            given = authorization[7:].strip()
        if not given or not hmac.compare_digest(given, self._token):
            return "a token is needed: open the URL the server printed (?token=...)"
        return None


async def _refuse(send: Send, reason: str) -> None:
    body = f"forbidden: {reason}\n".encode()
    await send({"type": "http.response.start", "status": 403, "headers": [
        (b"content-type", b"text/plain; charset=utf-8"),
        (b"content-length", str(len(body)).encode()), *_HEADERS]})
    await send({"type": "http.response.body", "body": body})

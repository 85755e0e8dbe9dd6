"""ElicitationRouter: an MCP server's question for a person (``elicitation/create``) goes to
the person behind the ask it came from, never to another ask's.

Each ask of a hosted team opens a route with its own asker (the face's: the web page's card,
the MCP client that asked, the A2A client), or none (the host's ``on_elicitation``, if any,
answers; else it is declined). MCP does not say which call a request belongs to: the request
carries the agents' calls to that server in flight, and the route is the one ask whose calls
they are. With one ask going on, it is that one; with several, the one that started those
calls (its ``ToolStarted`` events, noted as they come); when the calls of more than one ask
are in flight to that server, or none is found, the request is declined (a wrong person must
never answer).
"""

from __future__ import annotations

import itertools
import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from loguru import logger

if TYPE_CHECKING:
    from autobyteus_like.mcp import ElicitationHandler, ElicitationRequest

__all__ = ["ElicitationRouter"]

_MATCH_WAIT_S = 2.0
"""How long a request waits for its calls' ``ToolStarted`` events to reach their ask."""


@dataclass
class _Route:
    asker: ElicitationHandler | None
    calls: set[tuple[str, str]] = field(default_factory=set)


class ElicitationRouter:
    """The ``on_elicitation`` of a hosted team's MCP toolsets."""

    def __init__(self, fallback: ElicitationHandler | None) -> None:
        self.fallback = fallback
        self._routes: dict[int, _Route] = {}
        self._numbers = itertools.count()
        self._changed = threading.Condition()

    def open(self, asker: ElicitationHandler | None) -> int:
        """A route for an ask beginning; its number (to ``note`` and ``close``)."""
        with self._changed:
            number = next(self._numbers)
            self._routes[number] = _Route(asker)
            return number

    def note(self, number: int, agent: str, call_id: str) -> None:
        """The ask ``number`` started ``agent``'s call ``call_id``."""
        with self._changed:
            route = self._routes.get(number)
            if route is not None:
                route.calls.add((agent, call_id))
                self._changed.notify_all()

    def close(self, number: int) -> None:
        """The ask ended."""
        with self._changed:
            self._routes.pop(number, None)
            self._changed.notify_all()

    def __call__(self, request: ElicitationRequest) -> dict[str, Any] | bool | None:
        found, asker = self._route(request)
        if not found:
            return None
        if asker is None:
            asker = self.fallback
        return None if asker is None else asker(request)

    def _route(self, request: ElicitationRequest) -> tuple[bool, ElicitationHandler | None]:
        calls = set(request.calls)
        until = time.monotonic() + _MATCH_WAIT_S
        with self._changed:
            while True:
                routes = list(self._routes.values())
                if not routes:  # (a toolset used outside an ask: the host's callback)
                    return True, None
                if len(routes) == 1:
                    return True, routes[0].asker
                matched = [r for r in routes if r.calls & calls]
                if len(matched) == 1:
                    return True, matched[0].asker
                left = until - time.monotonic()
                if len(matched) > 1 or left <= 0:
                    logger.info("mcp server {}: an elicitation was declined: calls of {} asks "
                                "to it are in flight, and which one asked cannot be told",
                                request.server, len(matched) or "no")
                    return False, None
                self._changed.wait(left)

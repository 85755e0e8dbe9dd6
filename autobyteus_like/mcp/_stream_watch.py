"""WatchedReceiveStream: the session's read stream, telling when the server has gone.

The SDK's session fails calls in flight with ``CONNECTION_CLOSED`` when its transport ends, but
says nothing while idle. The toolset wants to know at once, so that the next call restarts the
server instead of failing too. This thin proxy sits between transport and session, forwards
every item as it is (no extra hop, no copy) and sets ``ended`` when the stream ends.
"""

from __future__ import annotations

from typing import Any

import anyio
from anyio.abc import ObjectReceiveStream

__all__ = ["WatchedReceiveStream"]


class WatchedReceiveStream(ObjectReceiveStream[Any]):
    """Forwards ``receive`` and ``aclose`` to ``inner``; ``ended`` is set at its end."""

    def __init__(self, inner: ObjectReceiveStream[Any], ended: anyio.Event) -> None:
        self._inner = inner
        self.ended = ended

    async def receive(self) -> Any:
        try:
            return await self._inner.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
            self.ended.set()
            raise

    async def aclose(self) -> None:
        self.ended.set()
        await self._inner.aclose()

    def __getattr__(self, name: str) -> Any:
        # Extras some transports' streams carry (e.g. ``last_context``) pass through.
        return getattr(self._inner, name)

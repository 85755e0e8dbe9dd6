"""The server's event log: every AG-UI event it has sent, numbered, as SSE frames.

Each event is encoded once, by the ``ag-ui-protocol`` package's ``EventEncoder``, and kept with
its number as the SSE ``id:``; every reader reads the same frames. A client that reconnects
with ``Last-Event-ID: N`` gets exactly the events after N, once each. Appends and reads happen
on the server's event loop, so no lock is needed.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from typing import Any

import anyio
from ag_ui.core import BaseEvent, RunErrorEvent, RunFinishedEvent
from ag_ui.encoder import EventEncoder
from pydantic_core import PydanticSerializationError

__all__ = ["EventLog"]

_SURROGATE = re.compile("[\ud800-\udfff]")
_BATCH = 512
"""At most this many frames go out in one write (a late reader catches up in big writes)."""
_GATHER_S = 0.003
"""How long a reader that caught up waits after the next event for more to come with it: a
busy run goes out in a few hundred writes a second instead of one per event."""


class EventLog:
    """Numbered SSE frames (1, 2, ...), with the run each belongs to."""

    def __init__(self) -> None:
        self._encoder = EventEncoder()
        self._frames: list[bytes] = []
        self._runs: list[str] = []
        self._endings: dict[str, int] = {}  # run id -> the number of its last event
        self._changed = anyio.Event()
        self._waiting = 0  # readers waiting on _changed (none: no need to wake anyone)
        self._closed = False

    @property
    def last_id(self) -> int:
        """The number of the newest event (0: none yet)."""
        return len(self._frames)

    def append(self, run_id: str, events: list[BaseEvent]) -> None:
        """Number, encode and keep ``events``, and wake every reader."""
        if not events:
            return
        for event in events:
            data = self._encode(event)
            self._frames.append(f"id: {len(self._frames) + 1}\n{data}".encode())
            self._runs.append(run_id)
            if isinstance(event, RunFinishedEvent | RunErrorEvent):
                self._endings[run_id] = len(self._frames)
        if self._waiting:
            self._changed.set()
            self._changed = anyio.Event()

    def _encode(self, event: BaseEvent) -> str:
        try:
            return self._encoder.encode(event)
        except PydanticSerializationError:  # text no UTF-8 can hold (a lone surrogate)
            clean = type(event).model_validate(_valid_text(event.model_dump()))
            return self._encoder.encode(clean)

    def close(self) -> None:
        """The server is going away: every reader ends after what it has."""
        self._closed = True
        self._changed.set()

    async def frames(self, after: int = 0, run_id: str | None = None,
                     until_end: bool = False) -> AsyncIterator[bytes]:
        """The frames after number ``after`` as they come, in batches; only ``run_id``'s when
        given, and with ``until_end`` ending after that run's last event (its
        ``RUN_FINISHED`` or ``RUN_ERROR``)."""
        position = max(0, min(after, len(self._frames)))
        while True:
            if position < len(self._frames):
                end = min(len(self._frames), position + _BATCH)
                if run_id is None:
                    batch = self._frames[position:end]
                else:
                    batch = [frame for frame, run in zip(self._frames[position:end],
                                                         self._runs[position:end], strict=True)
                             if run == run_id]
                position = end
                if batch:
                    yield b"".join(batch)
                if until_end and run_id is not None and self._endings.get(
                        run_id, position + 1) <= position:
                    return
                continue
            if self._closed:
                return
            self._waiting += 1
            try:
                await self._changed.wait()
            finally:
                self._waiting -= 1
            await anyio.sleep(_GATHER_S)  # let a burst gather: one write for many events


def _valid_text(value: Any) -> Any:
    """``value`` with every string made valid Unicode (a lone surrogate becomes U+FFFD)."""
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value)
    if isinstance(value, dict):
        return {_valid_text(key): _valid_text(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_valid_text(item) for item in value]
    return value

"""Who is told what a request looked like when it left the agent's LLM stack.

A session records each request as the model sees it (after the history processors and the text
format's rendering), not as the turn machine asked for it: the layer that shapes the request
(``history/_outgoing.py``'s ``ShapedLLM``) reports the shaped request here, and the recorder
(``hooks/_round_trips.py``) listens on the LLM worker's thread while its request goes out.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from autobyteus_like.llm._messages import LLMRequest

__all__ = ["report_sent", "watching_sent"]

_local = threading.local()


@contextmanager
def watching_sent(listener: Callable[[LLMRequest], None]) -> Iterator[None]:
    """Within the block, on this thread, ``listener`` is given each request as it is sent."""
    outer = getattr(_local, "listener", None)
    _local.listener = listener
    try:
        yield
    finally:
        _local.listener = outer


def report_sent(request: LLMRequest) -> None:
    """``request`` is about to go to the model (its shaped form): tell this thread's
    listener, if any."""
    listener = getattr(_local, "listener", None)
    if listener is not None:
        listener(request)

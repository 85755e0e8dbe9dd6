"""Event subscriptions read in batches: what is waiting, without waiting for more."""

from __future__ import annotations

import asyncio

from autobyteus_like.agent._subscription import AsyncEventSubscription, EventPublisher
from autobyteus_like.events import AgentErrorOccurred


def test_ready_hands_over_what_is_waiting_and_notices_the_end():
    async def main() -> tuple[list[str], list[str], bool]:
        publisher = EventPublisher()
        subscription = publisher.subscribe(AsyncEventSubscription())
        assert isinstance(subscription, AsyncEventSubscription)
        assert subscription.ready() == []  # nothing yet, and no waiting
        for n in range(3):
            publisher.publish(AgentErrorOccurred(agent="a", message=str(n), error_type="x"))
        await asyncio.sleep(0)  # the loop takes the hand-overs (call_soon_threadsafe)
        first = [event.message for event in subscription.ready()]
        publisher.publish(AgentErrorOccurred(agent="a", message="last", error_type="x"))
        publisher.close()
        await asyncio.sleep(0)
        second = [event.message for event in subscription.ready()]
        return first, second, await subscription.next_event() is None

    assert asyncio.run(main()) == (["0", "1", "2"], ["last"], True)

"""Event subscriptions read in batches: what is waiting, without waiting for more; and a
subscription whose reader left early (its iterator closed or collected) is released."""

from __future__ import annotations

import asyncio
import gc

from autobyteus_like import Agent, AgentConfig, AgentTeam, ScriptedLLM, TeamConfig
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


# -- a reader that leaves early, without ``with`` or ``close`` ---------------------------------

def _listeners(agent: Agent) -> int:
    return len(agent._publisher.subscribers)  # what the agent still feeds


def _agent(replies: int = 4) -> Agent:
    return Agent(AgentConfig(name="a", llm=ScriptedLLM(["hello there"] * replies)))


def test_an_events_iterator_left_early_and_dropped_releases_its_subscription():
    with _agent() as agent:
        events = agent.events()
        agent.run("hi", timeout=10)
        for _ in events:  # no with, no close
            break
        del events
        gc.collect()
        assert _listeners(agent) == 0
        kept = agent.events()  # one still held is still fed
        agent.run("again", timeout=10)
        assert _listeners(agent) == 1 and kept.get(timeout=1) is not None


def test_a_stream_s_iterator_closed_or_collected_releases_its_subscription():
    with _agent() as agent:
        stream = agent.stream("hi")
        events = stream.events()
        next(events)
        events.close()  # closed
        assert _listeners(agent) == 0
        stream.result(timeout=10)
        text = agent.stream("again").text()
        next(text)
        del text  # collected
        gc.collect()
        assert _listeners(agent) == 0


def test_an_astream_iterator_left_early_releases_its_subscription():
    async def main(agent: Agent) -> int:
        stream = agent.astream("hi")
        async for _ in stream.events():
            break
        gc.collect()
        for _ in range(3):
            await asyncio.sleep(0)  # the loop closes the abandoned generator (aclose)
        left = _listeners(agent)
        await stream.result(timeout=10)
        return left

    with _agent() as agent:
        assert asyncio.run(main(agent)) == 0


def test_a_team_stream_left_early_releases_its_subscription():
    config = TeamConfig(name="t", coordinator="lead", members=[
        AgentConfig(name="lead", llm=ScriptedLLM(["hello there"]))])
    with AgentTeam(config) as team:
        lead = team.agents["lead"].local  # the agent itself, in this process
        assert isinstance(lead, Agent)
        stream = team.stream("hi")
        events = stream.events()
        next(events)
        del events
        gc.collect()
        # the stream's own subscription is gone; the caller's place in the conversation's
        # queue listens for the run's quiet (one sink) and leaves with it
        assert _listeners(lead) == 0 and len(team._publisher.subscribers) <= 1
        stream.result(timeout=10)
        assert team.wait_quiescent(10) and not team._publisher.subscribers

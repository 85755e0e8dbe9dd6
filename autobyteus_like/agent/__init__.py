"""Agents: configuration, the actor, its workers and the embedding facade."""

from autobyteus_like.agent.actor import AgentActor
from autobyteus_like.agent.agent import Agent
from autobyteus_like.agent.config import AgentConfig
from autobyteus_like.agent.subscription import EventSubscription

__all__ = ["Agent", "AgentActor", "AgentConfig", "EventSubscription"]

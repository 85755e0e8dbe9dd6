"""Agents: configuration, the member's LLM (its call rules on every request; with ``tool_format:
auto`` the format adapting to the server: ``format_adapting``), the actor (the mailbox that
drives the turn machine in ``handlers``), its services (the LLM worker, the tool runner,
hand-offs), what is published (redaction), the session log, the hooks of a run, the replies
a member owes (``member_replies``: one wording for every runtime), side requests (a model
asked aside from the conversation, counted like the agent's own: ``SideRequests``), the
working set (``memory.advise``), and the embedding facade ``Agent``, composed of held parts
(toolbox, actor line, conversation, requests, unfinished turns) and put together when a run
starts by ``_assembly``; it sees its actor's state only as values (a ``TurnSnapshot``, the
conversation), never its context."""

from autobyteus_like.agent._actor import AgentActor
from autobyteus_like.agent._agent import Agent
from autobyteus_like.agent._config import AgentConfig
from autobyteus_like.agent._side_requests import SideRequests
from autobyteus_like.agent._subscription import EventSubscription

__all__ = ["Agent", "AgentActor", "AgentConfig", "EventSubscription", "SideRequests"]

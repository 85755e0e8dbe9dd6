"""How an agent is put together when a run of it starts (``Agent.start``, ``new_run``): every
decision in one place, in this order.

1. The model stack (``model_stack``): the member's LLM (built from its description now, or
   the previous run's), its learned formats kept in the session's store, the compact
   manifest's demonstration before each request, a check that it takes the tools, and the
   shaping of each request (history processors, the working set, a text format, a provider
   schema for the answer).
2. The session's part (``hold_session``): an agent on its own holds its session (a team holds
   its members'); the snapshot of what the last process left is restored, a scripted LLM goes
   on after its stored replies, and the session writer and usage keeper are made.
3. The hooks of the run (``_run_hooks``): the session writer first, then the usage meter and
   the spans, then the config's own hooks (added by the actor).
4. The handlers: the config's registry, shared by its agents (``_per_config``).
5. The actor, started on the agent's actor line with all of it.

What follows from the config alone is made once per config (``_per_config``); what depends on
the run (the LLM, the session, the hooks) is made here, at start, never when the agent is built.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any

from autobyteus_like.agent._actor import AgentActor
from autobyteus_like.agent._config_entries import shared
from autobyteus_like.agent._member_llm import keep_formats_in
from autobyteus_like.agent._run_hooks import session_writer, usage_and_tracing_hooks
from autobyteus_like.agent._session_usage import SessionUsage
from autobyteus_like.agent._working_memory import WorkingSetOwner, working_set_processors
from autobyteus_like.formats import NATIVE
from autobyteus_like.handlers import HandlerRegistry, default_handlers
from autobyteus_like.llm._demonstrating import DemonstratingLLM
from autobyteus_like.llm._providers import LLMProvider
from autobyteus_like.llm._scripted import continue_script
from autobyteus_like.output._structured import provider_schema
from autobyteus_like.tools._context import CancelFlag

if TYPE_CHECKING:
    from autobyteus_like.agent._actor_line import ActorLine
    from autobyteus_like.agent._config import AgentConfig
    from autobyteus_like.agent._conversation import Conversation
    from autobyteus_like.agent._resume import UnfinishedTurns
    from autobyteus_like.agent._subscription import EventPublisher
    from autobyteus_like.agent._toolbox import Toolbox
    from autobyteus_like.hooks._protocol import AgentHooks
    from autobyteus_like.llm._base import LLM
    from autobyteus_like.output._spec import OutputSpec
    from autobyteus_like.store._session import Session
    from autobyteus_like.tracing._settings import Tracing
    from autobyteus_like.usage._report import AgentUsage

__all__ = ["config_handlers", "hold_session", "model_stack", "release_session", "start_run"]


def config_handlers(config: AgentConfig) -> HandlerRegistry:
    """The built-in handlers with the config's own (``config.handlers``) over them, one
    registry for every actor of the config (``shared``: a handler keeps nothing of a turn)."""
    handlers = default_handlers()
    for event_type, handler in config.handlers.items():
        handlers.register(event_type, handler)
    return handlers


def model_stack(config: AgentConfig, llm: LLM, toolbox: Toolbox, output: OutputSpec | None,
                processors: list[Any], session: Session | None) -> tuple[LLM, LLM]:
    """The member's LLM as the run's hooks see it (with the compact manifest's demonstration),
    and as the actor calls it (each request shaped, when anything shapes it)."""
    keep_formats_in(llm, session.store if session is not None else None)
    tool_format = toolbox.format
    if config.manifest == "compact" and tool_format.name != NATIVE and \
            llm.provider is not LLMProvider.SCRIPTED and \
            not isinstance(llm, DemonstratingLLM):  # a scripted LLM keys replies by history
        llm = DemonstratingLLM(llm, lambda: toolbox.demonstration)
    llm.check_tools(toolbox.tools)  # e.g. a schema strict mode cannot take
    schema = provider_schema(config.name, output, config.output_mode, tool_format.name, llm)
    if not (processors or tool_format.name != NATIVE or schema):
        return llm, llm
    from autobyteus_like.history._outgoing import ShapedLLM  # what each request sends

    return llm, ShapedLLM(llm, config.name, tool_format, processors, schema)


def hold_session(session: Session | None, name: str, toolbox: Toolbox) -> bool:
    """Hold ``session`` for an agent on its own (whether it did: a team holds its members')."""
    if session is None or session.held:
        return False
    session.hold(name, {name: toolbox.tools.names()})
    return True


def release_session(session: Session | None, name: str, held: bool, wrote: bool = True
                    ) -> None:
    """The end of a run of ``name`` in ``session``: its writer stopped (``wrote``), and the
    session released if the agent held it (``held``)."""
    if session is not None and wrote:
        session.stopped(name)
    if held and session is not None:
        session.release(session.standing())


def start_run(*, config: AgentConfig, llm: LLM, toolbox: Toolbox, line: ActorLine,
              conversation: Conversation, unfinished: UnfinishedTurns, session: Session | None,
              holds: bool, usage: AgentUsage, tracing: Tracing | None, publisher: EventPublisher,
              owner: WorkingSetOwner) -> bool:
    """Start the actor of a new run of the agent ``owner`` on ``line`` (``llm``: its member
    LLM, unwrapped), seeded with the config's history unless the session goes on with its
    own conversation; whether the agent holds its session (``holds``: it did already, the
    previous run's; ``release_session`` at its stop). A failure releases the session."""
    name = config.name
    processors, working_set = working_set_processors(owner)  # memory.advise's
    llm, served = model_stack(config, llm, toolbox, config.output_spec(), processors, session)
    actor_config = config if served is config.llm else config.model_copy(update={"llm": served})
    held = holds or hold_session(session, name, toolbox)
    hooks: list[AgentHooks] = []
    try:
        keeper = None
        if session is not None:
            unfinished.snapshot = restored = session.restore(name)
            continue_script(llm, restored.messages, session.name, restored.inherited_replies)
            hooks.append(session_writer(session, name, restored, served is not llm))
            keeper = SessionUsage(session, name)  # the run's budget is kept there
            line.turn_ids = itertools.count(restored.last_turn_id + 1)
        metered = usage_and_tracing_hooks(name, llm, usage, tracing, keeper)
        line.traced = len(metered) > 1
        line.run_stopped = CancelFlag()
        snapshot = unfinished.snapshot
        line.ref = AgentActor.start(
            actor_config, toolbox.tools, toolbox.format, toolbox.prompt,
            shared(config, "handlers", config_handlers), publisher, line.threads,
            hooks=(*hooks, *metered), snapshot=snapshot, working_set=working_set,
            run_stopped=line.run_stopped, session=None if session is None else session.name)
        if config.history is not None and not (snapshot is not None and snapshot.messages):
            conversation.seed(config.history)  # a session's own conversation goes on
    except BaseException:
        release_session(session, name, held, wrote=bool(hooks))
        raise
    return held

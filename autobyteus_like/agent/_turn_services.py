"""The services an agent's actor gives its turn machine: streaming an LLM request on the LLM
worker, running a call on the tool runner (each inside the hooks that wrap it, on that thread),
and taking refreshed tools at a turn's start. Work the hooks admitted but no thread took (the
run ended, the agent stopped) is said by kind when it is dropped, so the hooks release it.

Work for other threads is handed over once the current mailbox message is fully handled
(``hand_over``): the thread that takes it then runs while the actor goes back to its mailbox,
instead of both competing for the interpreter lock (on one core that ping-pong cost ~20 us a
hand-off).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from autobyteus_like.agent._llm_worker import LLMWorker
from autobyteus_like.agent._tool_runner import ToolRunner
from autobyteus_like.handlers._effects import RunTool, StreamLLM
from autobyteus_like.hooks import AgentHooks, CallKind
from autobyteus_like.hooks._wrapping import wrappers
from autobyteus_like.llm._base import LLM
from autobyteus_like.llm._cancellation import Cancellation
from autobyteus_like.llm._messages import LLMRequest

if TYPE_CHECKING:
    from autobyteus_like.agent._actor_messages import ToolsRefreshed
    from autobyteus_like.agent._config import AgentConfig
    from autobyteus_like.agent._deadlines import Deadlines
    from autobyteus_like.agent._publication import Publication
    from autobyteus_like.events import AgentEvent
    from autobyteus_like.handlers._context import AgentContext

__all__ = ["TurnServices"]


class TurnServices:
    """One agent's LLM worker (started on first use), tool runner and hand-offs."""

    def __init__(self, config: AgentConfig,
                 post: Callable[[AgentEvent | tuple[AgentEvent, ...]], None],
                 threads: list[threading.Thread], publication: Publication,
                 deadlines: Deadlines) -> None:
        self._config = config
        self._post = post
        self._threads = threads
        self._publication = publication
        self.cancel = Cancellation()
        self.runner = ToolRunner(config.name, post, deadlines, config.max_parallel_tools,
                                 config.middleware, config.max_result_chars)
        self.worker: LLMWorker | None = None
        self.handoffs: list[tuple[Callable[..., object], tuple[Any, ...], CallKind]] = []
        """Work for other threads, as (function, arguments, what the hooks admitted), given to
        them by ``hand_over``."""
        self._request_wrappers: tuple[Callable[..., Any], ...] = ()
        self.refreshed: ToolsRefreshed | None = None
        self.ctx: AgentContext | None = None
        """The context served (set once it exists)."""

    def use_hooks(self, hooks: AgentHooks) -> None:
        """The agent's hooks are fixed: those that wrap a request or a call (none: no chain)."""
        self._request_wrappers = wrappers(hooks, "wrap_model_request")
        self.runner.wrap(wrappers(hooks, "wrap_tool_call"))

    def stream_llm(self, effect: StreamLLM) -> None:
        """Queue the request for the LLM worker (started on first use)."""
        request = effect.request
        ctx = self.ctx
        assert ctx is not None
        turn = ctx.turn
        if self.refreshed is not None and turn is not None and turn.iterations == 1:
            request = self._take_tools(ctx, self.refreshed, request)
        if self.worker is None:
            llm = self._config.llm
            assert isinstance(llm, LLM), "an agent builds its LLM before its actor starts"
            self.worker = LLMWorker(ctx.name, llm, self._post, self.cancel, self._threads,
                                    self._request_wrappers)
        self.handoffs.append((self.worker.send, (effect.request_no, request, effect.turn_id),
                              "llm_calls"))

    def _take_tools(self, ctx: AgentContext, refreshed: ToolsRefreshed, request: LLMRequest
                    ) -> LLMRequest:
        """Switch to refreshed tools at the start of a turn: the context, the turn's parser
        and the request about to be sent all take them."""
        self.refreshed = None
        assert ctx.turn is not None
        env = replace(ctx.env, tools=refreshed.tools, system_prompt=refreshed.system_prompt)
        ctx.use(env)
        ctx.turn.parser = env.format.parser_factory(env.tools, ctx.ids)
        self._publication.use(env.tools)
        return LLMRequest(env.system_prompt, request.messages,
                          tuple(env.tools) if env.native else ())

    def run_tool(self, effect: RunTool) -> None:
        """Queue the call for the tool runner, which runs the tool's body."""
        self.handoffs.append((self.runner.submit, (effect.invocation, effect.tool,
                                                   effect.timeout, effect.context, effect.bound),
                              "tool_calls"))

    def hand_over(self) -> None:
        """Give the work queued while handling a message to its threads."""
        handoffs, self.handoffs = self.handoffs, []
        stopped = self.ctx is not None and self.ctx.run_stopped.is_set()
        for handoff, arguments, _ in handoffs:
            if stopped and handoff == self.runner.submit:  # acknowledged stop: none starts
                continue
            handoff(*arguments)

    def drop_handoffs(self) -> list[CallKind]:
        """Drop the work not yet handed over: what each was (never made)."""
        handoffs, self.handoffs = self.handoffs, []
        return [kind for _, _, kind in handoffs]

    def stop_work(self) -> list[CallKind]:
        """Cut the LLM request and the tools, and drop work not yet handed over: what was
        queued and will now never be made (a request its worker had not begun, a call whose
        body had not started)."""
        self.cancel.set()
        unmade = self.drop_handoffs()
        if self.worker is not None:
            unmade += ["llm_calls"] * self.worker.withdraw()
        # the agent's thread stays free; stopping it waits
        unmade += ["tool_calls"] * self.runner.stop(wait=False)
        return unmade

    def stop(self) -> list[CallKind]:
        """The agent stops: everything above, and the LLM worker (not waited for here: a
        stream the provider cannot cut ends at its own timeout; the facade joins its thread
        with a deadline). What will now never be made, as ``stop_work``."""
        self.cancel.set()
        unmade = self.drop_handoffs()
        unmade += ["tool_calls"] * self.runner.stop()
        if self.worker is not None:
            unmade += ["llm_calls"] * self.worker.withdraw()
            self.worker.stop()
        return unmade

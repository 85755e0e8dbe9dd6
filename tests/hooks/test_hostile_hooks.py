"""A user's own hooks, attacked from outside: a hook that raises at any point of a turn fails
that turn (never hangs it, never the agent), the error names the hook and the point, every
turn ends exactly once at the hooks, and the agent goes on with the next message."""

from __future__ import annotations

import contextlib
import json
import threading
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import Future

import pytest

from autobyteus_like import Agent, AgentConfig, AgentHooks, ScriptedLLM, ToolContext, tool
from autobyteus_like.agent import EventSubscription
from autobyteus_like.errors import AgentTurnError, AutobyteusLikeError
from autobyteus_like.events import AgentErrorOccurred, AgentEvent, ApprovalRequested
from autobyteus_like.llm._messages import LLMRequest

POINTS = ["message_received", "turn_started", "claim", "request_sent", "call_parsed",
          "response_received", "response_completed", "call_pending", "call_waiting",
          "call_approved", "call_running", "call_finished", "verdict"]


def calls(*pairs: tuple[str, dict[str, object]]) -> str:
    return "".join(json.dumps({"name": name, "arguments": args}) for name, args in pairs)


def script(request: LLMRequest) -> str:
    """Every new user message asks for two calls (one needs approval); results get 'done'."""
    last = request.messages[-1]
    if last.role == "user" and not last.content.startswith("Tool results"):
        return calls(("note", {"text": last.content}), ("launch", {"target": last.content}))
    return "done"


class Recorder(AgentHooks):
    """Counts each turn's end and each call's finish."""

    def __init__(self) -> None:
        self.ended: Counter[int] = Counter()
        self.finished: Counter[str] = Counter()
        self.errors: list[str | None] = []

    def turn_ended(self, turn: object, messages: Sequence[object], answer: str,
                   error: str | None) -> None:
        self.ended[turn.turn_id] += 1  # type: ignore[attr-defined]
        self.errors.append(error)

    def call_finished(self, turn: object, call: object) -> None:
        self.finished[call.invocation.id] += 1  # type: ignore[attr-defined]


def _raising_class(point: str) -> type[AgentHooks]:
    """A hook class overriding only ``point`` (the composite looks at the class)."""

    def method(self: AgentHooks, *args: object, **kwargs: object) -> object:
        if not self.fired:  # type: ignore[attr-defined]
            self.fired = True  # type: ignore[attr-defined]
            raise RuntimeError(f"boom at {point}")
        return None

    return type("Raising", (AgentHooks,), {
        "__init__": lambda self: setattr(self, "fired", False), point: method})


def _drive(agent: Agent, text: str, timeout: float = 10) -> Future[str]:
    """Send ``text`` and approve every call that asks, until the turn is over."""
    events = agent.events()
    reply = agent.send(text)
    while not reply.done():
        event: AgentEvent | None = events.get(timeout=timeout)
        assert event is not None, "the agent stopped or went quiet before the turn ended"
        if isinstance(event, ApprovalRequested):
            with contextlib.suppress(AutobyteusLikeError):  # the turn failed meanwhile
                agent.approve(event.invocation.id)
    events.close()
    return reply


@pytest.mark.parametrize("point", POINTS)
def test_a_hook_that_raises_fails_its_turn_names_itself_and_the_agent_goes_on(point: str):
    ran: Counter[str] = Counter()

    @tool
    def note(text: str) -> str:
        """Note it."""
        ran["note:" + text] += 1
        return "noted"

    @tool(requires_approval=True)
    def launch(target: str) -> str:
        """Launch."""
        ran["launch:" + target] += 1
        return "launched"

    recorder = Recorder()
    config = AgentConfig(name="a", llm=ScriptedLLM([script] * 10), tools=[note, launch],
                         tool_format="json", auto_execute_tools=False,
                         approval_policy="marked",
                         hooks=[recorder, _raising_class(point)()])
    with Agent(config) as agent:
        first = _drive(agent, "one")
        with pytest.raises(AgentTurnError) as failed:
            first.result(timeout=0)
        message = str(failed.value)
        assert "Raising" in message and point in message and f"boom at {point}" in message
        assert _drive(agent, "two").result(timeout=0) == "done"  # the agent goes on
    assert all(count == 1 for count in ran.values()), ran  # no call ran twice
    assert ran["note:two"] == ran["launch:two"] == 1
    started = point not in ("message_received", "verdict")  # these come before the turn
    assert recorder.ended == (Counter({1: 1, 2: 1}) if started else Counter({2: 1}))
    assert recorder.errors[-1] is None
    assert all(count == 1 for count in recorder.finished.values())


class CallsBack(AgentHooks):
    """At the first call about to run, calls ``action`` with the agent (on its own thread)."""

    def __init__(self, action: str) -> None:
        self.action = action
        self.agent: Agent | None = None
        self.outcome: object = None
        self.done = threading.Event()

    def call_running(self, turn: object, call: object) -> None:
        if self.done.is_set():
            return
        agent = self.agent
        assert agent is not None
        try:
            if self.action == "stop":
                agent.stop()
            elif self.action == "send":
                self.outcome = agent.send("more")
            elif self.action == "run":
                agent.run("more", timeout=None)  # would wait for ever for itself
            elif self.action == "approve":
                agent.approve("call_x")
            elif self.action == "history":
                agent.history  # noqa: B018
        except AutobyteusLikeError as exc:
            self.outcome = exc
        finally:
            self.done.set()


def _calling_back(action: str) -> tuple[Agent, CallsBack]:
    @tool
    def note(text: str) -> str:
        """Note it."""
        return "noted"

    hook = CallsBack(action)
    llm = ScriptedLLM([calls(("note", {"text": "x"})), "hello", "more done"])
    agent = Agent(AgentConfig(name="a", llm=llm, tools=[note], tool_format="json",
                              hooks=[hook]))
    hook.agent = agent
    return agent, hook


@pytest.mark.parametrize("action", ["run", "approve", "history"])
def test_a_hook_that_waits_for_its_own_agent_gets_a_clear_error_at_once(action: str):
    agent, hook = _calling_back(action)
    with agent:
        assert agent.run("go", timeout=10) == "hello"  # the turn never stalled
    assert type(hook.outcome).__name__ == "OwnThreadError"
    assert action in str(hook.outcome) and "own threads" in str(hook.outcome)


def test_a_hook_that_stops_its_agent_stops_it_promptly_and_leaves_no_thread():
    agent, hook = _calling_back("stop")
    with agent:
        reply = agent.send("go")
        assert hook.done.wait(10)
        with pytest.raises(AutobyteusLikeError, match="stopped before the turn finished"):
            reply.result(timeout=5)
        with pytest.raises(AutobyteusLikeError, match="is not running"):
            agent.send("after")
    assert hook.outcome is None
    assert not [t for t in threading.enumerate() if t.name.startswith(("a-", "AgentActor"))]


def test_a_hook_may_send_its_agent_a_message_which_waits_its_turn():
    agent, hook = _calling_back("send")
    with agent:
        assert agent.run("go", timeout=10) == "hello"
        assert hook.done.wait(10)
        assert isinstance(hook.outcome, Future)
        assert hook.outcome.result(timeout=10) == "more done"


def _gated_agent(hook: AgentHooks, responses: list[str], **options: object
                 ) -> tuple[Agent, threading.Event, threading.Event]:
    """An agent whose ``note`` tool waits at a gate, so messages can queue behind its turn."""
    entered, gate = threading.Event(), threading.Event()

    @tool
    def note(text: str) -> str:
        """Note it."""
        entered.set()
        gate.wait(10)
        return "noted"

    config = AgentConfig(name="a", llm=ScriptedLLM(responses), tools=[note],
                         tool_format="json", hooks=[hook], **options)  # type: ignore[arg-type]
    return Agent(config), entered, gate


def _reported(events: EventSubscription, hook: str) -> None:
    """Wait until an ``AgentErrorOccurred`` names ``hook`` (the agent reported it)."""
    while True:
        event = events.get(timeout=10)
        assert event is not None, f"the agent stopped without reporting {hook}"
        if isinstance(event, AgentErrorOccurred) and hook in event.message:
            return


def test_a_hook_that_fails_to_record_the_end_of_a_run_still_ends_it_and_every_message():
    from autobyteus_like import UsageLimitExceededError, UsageLimits

    class BrokenRunEnd(AgentHooks):
        def run_ended(self, error: object) -> None:
            raise RuntimeError("cannot record the end of the run")

    agent, entered, gate = _gated_agent(
        BrokenRunEnd(), [calls(("note", {"text": "1"})), calls(("note", {"text": "2"})),
                         "never"], limits=UsageLimits(max_tool_calls=1))
    with agent:
        events = agent.events()
        running = agent.send("one")
        assert entered.wait(10)
        waiting = agent.send("two")  # queued behind the turn the limit ends
        gate.set()
        for reply in (running, waiting):  # neither hangs
            with pytest.raises(UsageLimitExceededError, match="max_tool_calls=1"):
                reply.result(timeout=10)
        _reported(events, "BrokenRunEnd.run_ended")


def test_a_reset_a_hook_fails_to_record_keeps_the_history_and_the_next_message_runs():
    class BrokenReset(AgentHooks):
        def conversation_reset(self, reset: object) -> None:
            raise RuntimeError("cannot record the reset")

    agent, entered, gate = _gated_agent(
        BrokenReset(), [calls(("note", {"text": "1"})), "first", "second"])
    with agent:
        events = agent.events()
        first = agent.send("one")
        assert entered.wait(10)
        agent.reset()  # waits for the turn, then fails at the hook
        second = agent.send("two")  # behind the reset: must not wait for ever
        gate.set()
        assert first.result(timeout=10) == "first"
        assert second.result(timeout=10) == "second"
        assert next(m.content for m in agent.history if m.role == "user") == "one"  # kept
        _reported(events, "BrokenReset.conversation_reset")


def test_a_hook_that_fails_to_close_does_not_keep_the_agent_from_stopping():
    class BrokenClose(AgentHooks):
        def close(self) -> None:
            raise RuntimeError("cannot close")

    config = AgentConfig(name="a", llm=ScriptedLLM(["hi"]), hooks=[BrokenClose()])
    with Agent(config) as agent:
        assert agent.run("go", timeout=10) == "hi"
    assert not agent.running
    assert not [t for t in threading.enumerate() if t.name.startswith("AgentActor")]


class Order(AgentHooks):
    """Writes down each call point with the call's position, and each turn's end."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, int]] = []
        self.lock = threading.Lock()

    def _note(self, point: str, call: object) -> None:
        with self.lock:
            self.seen.append((point, call.position))  # type: ignore[attr-defined]

    def call_parsed(self, turn: object, call: object) -> None:
        self._note("parsed", call)

    def call_pending(self, turn: object, call: object) -> None:
        self._note("pending", call)

    def call_running(self, turn: object, call: object) -> None:
        self._note("running", call)

    def call_finished(self, turn: object, call: object) -> None:
        self._note("finished", call)

    def turn_ended(self, turn: object, messages: Sequence[object], answer: str,
                   error: str | None) -> None:
        self.seen.append(("ended", -1))

    def close(self) -> None:
        self.seen.append(("closed", -1))


@pytest.mark.parametrize("execution", ["parallel", "sequential"])
def test_hooks_see_each_call_once_and_in_its_order_whatever_order_calls_finish(execution):
    from autobyteus_like.history._messages import ToolResultsMessage

    fast_done = threading.Event()

    @tool
    def slow(tag: str) -> str:
        """Finishes after ``fast`` when they run side by side."""
        if execution == "parallel":
            assert fast_done.wait(10)
        return "slow " + tag

    @tool
    def fast(tag: str) -> str:
        """Finishes at once."""
        fast_done.set()
        return "fast " + tag

    order = Order()
    response = calls(("slow", {"tag": "0"}), ("fast", {"tag": "1"}), ("slow", {"tag": "2"}))
    config = AgentConfig(name="a", llm=ScriptedLLM([response, "done"]), tools=[slow, fast],
                         tool_format="json", tool_execution=execution, hooks=[order])
    with Agent(config) as agent:
        assert agent.run("go", timeout=10) == "done"
        history = agent.history
    for position in range(3):
        points = [point for point, at in order.seen if at == position]
        assert points == ["parsed", "pending", "running", "finished"], (position, order.seen)
    finished = [at for point, at in order.seen if point == "finished"]
    if execution == "parallel":
        assert finished.index(1) < finished.index(0)  # fast really finished first
    else:
        assert finished == [0, 1, 2]
    [results] = [m for m in history if isinstance(m, ToolResultsMessage)]
    assert [r.content for r in results.results] == ["slow 0", "fast 1", "slow 2"]
    assert [p for p, _ in order.seen if p in ("ended", "closed")] == ["ended", "closed"]


def test_a_stop_mid_turn_is_not_the_turn_s_end_the_hooks_are_closed_once():
    """A stopped turn stays unfinished (a session resumes it), so ``turn_ended`` is not
    called for it; ``close`` is, once."""
    entered = threading.Event()

    @tool
    def hold(tag: str, context: ToolContext) -> str:
        """Holds until cancelled."""
        entered.set()
        while not context.cancelled.is_set():
            threading.Event().wait(0.01)  # the flag is made to be polled
        return "held"

    order = Order()
    config = AgentConfig(name="a", llm=ScriptedLLM([calls(("hold", {"tag": "0"})), "done"]),
                         tools=[hold], tool_format="json", hooks=[order])
    agent = Agent(config).start()
    try:
        reply = agent.send("go")
        assert entered.wait(10)
    finally:
        agent.stop()
    with pytest.raises(AutobyteusLikeError, match="stopped before the turn finished"):
        reply.result(timeout=10)
    assert [p for p, _ in order.seen if p in ("ended", "closed")] == ["closed"]


def test_hooks_are_fixed_when_the_config_is_made():
    config = AgentConfig(name="a", llm=ScriptedLLM(["hi"]), hooks=[AgentHooks()])
    with pytest.raises(AttributeError):
        config.hooks.append(object())  # type: ignore[attr-defined]
    assert len(config.hooks) == 1


def test_a_hook_that_fails_at_the_start_of_a_run_is_reported_and_the_agent_goes_on():
    class BrokenStart(AgentHooks):
        def run_started(self, end_run: object) -> None:
            raise RuntimeError("cannot open the run's record")

    config = AgentConfig(name="a", llm=ScriptedLLM(["done"]), hooks=[BrokenStart()])
    with Agent(config) as agent:
        events = agent.events()
        assert agent.run("go", timeout=10) == "done"
        _reported(events, "BrokenStart.run_started")

"""Tool-call deadlines kept by the agent's mailbox and fired by its own thread."""

from __future__ import annotations

import json
import threading
import time

from autobyteus_like import Agent, AgentConfig, ScriptedLLM, tool
from autobyteus_like.agent._deadlines import Deadlines
from autobyteus_like.agent._fast_inbox import DEADLINES_DUE, DeadlineInbox


def test_an_entry_fires_once_when_due_and_not_before():
    deadlines = Deadlines("t")
    fired: list[str] = []
    deadlines.add("a", 0.05, lambda: fired.append("a"))
    deadlines.fire_due()
    assert fired == []
    wait = deadlines.wait_s()
    assert wait is not None and 0 < wait <= 0.05
    time.sleep(wait)
    deadlines.fire_due()
    deadlines.fire_due()
    assert fired == ["a"]
    assert deadlines.wait_s() is None


def test_removed_and_stopped_entries_never_fire_and_a_failing_one_spares_the_rest():
    deadlines = Deadlines("t")
    fired: list[str] = []

    def broken() -> None:
        raise RuntimeError("a bug in one callback")

    deadlines.add("removed", 0, lambda: fired.append("removed"))
    deadlines.add("broken", 0, broken)
    deadlines.add("kept", 0, lambda: fired.append("kept"))
    deadlines.remove("removed")
    deadlines.fire_due()
    assert fired == ["kept"]
    deadlines.add("stopped", 0, lambda: fired.append("stopped"))
    deadlines.stop()
    deadlines.add("after the stop", 0, lambda: fired.append("after"))
    deadlines.fire_due()
    assert fired == ["kept"]
    assert deadlines.wait_s() is None


def test_the_mailbox_waits_until_the_earliest_deadline_then_says_so():
    inbox = DeadlineInbox()
    inbox.deadlines = Deadlines("t")
    inbox.put("message")
    assert inbox.get() == "message"  # no deadline: an ordinary mailbox
    inbox.deadlines.add("call", 0.05, lambda: None)
    started = time.monotonic()
    envelope = inbox.get()
    assert envelope.message is DEADLINES_DUE and envelope.reply_to is None
    assert time.monotonic() - started >= 0.04
    inbox.deadlines.fire_due()
    later = threading.Timer(0.01, inbox.put, args=("reply",))
    inbox.deadlines.add("slow call", 10, lambda: None)
    later.start()
    assert inbox.get() == "reply"  # a message before the deadline comes first
    later.join()


def test_a_due_deadline_goes_before_waiting_messages_so_a_busy_mailbox_cannot_starve_it():
    inbox = DeadlineInbox()
    inbox.deadlines = Deadlines("t")
    inbox.deadlines.add("call", 0, lambda: None)
    for number in range(3):
        inbox.put(number)
    assert inbox.get().message is DEADLINES_DUE
    inbox.deadlines.fire_due()
    assert [inbox.get() for _ in range(3)] == [0, 1, 2]


def test_no_thread_keeps_time_for_an_agent_yet_a_stuck_tool_still_times_out():
    release = threading.Event()
    stalled: list[threading.Thread] = []

    @tool(timeout_s=0.2)
    def stall() -> str:
        """Ignores its timeout."""
        stalled.append(threading.current_thread())
        release.wait(10)
        return "late"

    llm = ScriptedLLM([json.dumps({"name": "stall", "arguments": {}}), "timed out"])
    before = set(threading.enumerate())
    with Agent(AgentConfig(name="timer", llm=llm, tools=[stall], tool_format="json",
                           max_parallel_tools=1)) as agent:
        assert agent.run("go", timeout=10) == "timed out"
        assert '"code": "TIMEOUT"' in str(llm.requests[1].messages[-1].content)
        names = sorted(thread.name for thread in set(threading.enumerate()) - before)
        release.set()
    # the overrun call's thread was given up (stop does not wait for it): it ends on its own
    # once its body returns, which the release lets it do
    stalled[0].join(timeout=10)
    assert not stalled[0].is_alive()
    # the agent's actor, its LLM worker and the tool's thread; none of them a timer
    assert len(names) == 3, names
    assert not [name for name in names if "deadline" in name]

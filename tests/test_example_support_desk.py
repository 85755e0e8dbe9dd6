"""examples/support_desk.py: triage hands off to tech; tech asks the researcher twice in
parallel beside an ordinary call; the next message goes to the holder, who hands off to
billing. Every member's kept conversation pairs each call with its result, in order."""

from __future__ import annotations

import runpy
import threading
from pathlib import Path

from autobyteus_like import AgentTeam
from autobyteus_like.history import AssistantMessage, ToolResultsMessage, UserMessage

EXAMPLE = Path(__file__).parent.parent / "examples" / "support_desk.py"


def well_paired(history):
    """Each assistant message's calls are answered by the next message, id for id, in the
    order they were written; no result without its call."""
    messages = list(history)
    for i, message in enumerate(messages):
        if isinstance(message, AssistantMessage) and message.tool_calls:
            answer = messages[i + 1]
            assert isinstance(answer, ToolResultsMessage), (i, answer)
            assert [r.invocation_id for r in answer.results] == [
                c.id for c in message.tool_calls]
        if isinstance(message, ToolResultsMessage):
            assert isinstance(messages[i - 1], AssistantMessage)
    return messages


def test_the_support_desk_hands_over_asks_in_parallel_and_pairs_every_call():
    example = runpy.run_path(str(EXAMPLE))
    config = example["desk"]()
    researcher = next(m for m in config.members if m.name == "researcher")
    asking = threading.Barrier(2)  # both asks must be in flight at once
    answer = example["researcher_answer"]

    def meet_then_answer(request):
        asking.wait(timeout=10)
        return answer(request)

    researcher.llm.responses[:] = [meet_then_answer] * 2
    with AgentTeam(config, tools=[example["service_status"]]) as team:
        first = team.run("The app crashes when I open it since yesterday's update.", timeout=30)
        second = team.run("Also, I was charged twice this month.", timeout=30)
        histories = {name: well_paired(team.agents[name].history)
                     for name in ("triage", "tech", "billing")}
    assert first.startswith("It is a known issue (KB-101)")
    assert second.startswith("Refunded the second charge")
    tech = histories["tech"]
    [asked] = [m for m in tech if isinstance(m, AssistantMessage) and len(m.tool_calls) == 3]
    assert [c.name for c in asked.tool_calls] == ["ask_researcher", "ask_researcher",
                                                   "service_status"]
    results = tech[tech.index(asked) + 1].results
    assert [r.content for r in results] == [
        "Known issue KB-101: version 2.3 crashes at start on devices with an old cache.",
        "Version 2.3.1 (out today) clears the old cache on first start.",
        "app: up, no incident open"]
    # the second message went to the holder (tech), who handed it on to billing
    assert [m.content for m in tech if isinstance(m, UserMessage)][-1] == (
        "Also, I was charged twice this month.")
    assert any(c.name == "transfer_to_billing" for m in tech
               if isinstance(m, AssistantMessage) for c in m.tool_calls)
    assert histories["billing"][-1].content.startswith("Refunded")


def test_the_example_prints_each_call_beside_its_result(capsys):
    runpy.run_path(str(EXAMPLE), run_name="__main__")
    out = capsys.readouterr().out
    call = out.index("call  call_1 ask_researcher")
    assert out.index("call  call_3 service_status") < out.index("result call_1 success")
    assert call < out.index("result call_3 success: app: up")
    assert "< Refunded the second charge" in out

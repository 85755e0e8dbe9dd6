"""A support desk: triage hands the conversation to billing or tech; tech asks a researcher as a
tool, twice in parallel, beside an ordinary call in the same response. Offline, on scripted
replies (each member speaks the format of the provider it imitates):

    .venv/bin/python examples/support_desk.py

It prints each member's conversation as the team keeps it: every call with its result, in the
order the model wrote the calls, and who held the conversation after each message.
"""

from __future__ import annotations

import json
from typing import Any

from autobyteus_like import AgentConfig, AgentTeam, ScriptedLLM, TeamConfig, tool
from autobyteus_like.history import AssistantMessage, ToolResultsMessage, UserMessage
from autobyteus_like.llm import LLMRequest

FACTS = {
    "crash": "Known issue KB-101: version 2.3 crashes at start on devices with an old cache.",
    "patch": "Version 2.3.1 (out today) clears the old cache on first start.",
}


@tool
def service_status(service: str) -> str:
    """Whether one of our services is up.

    Args:
        service: The service's name (app, payments, sync).
    """
    return f"{service}: up, no incident open"


def openai_calls(*calls: tuple[str, dict[str, Any]]) -> str:
    """One reply holding ``calls`` as an OpenAI-style model writes them."""
    return json.dumps({"tool_calls": [
        {"id": f"call_{i}", "type": "function",
         "function": {"name": name, "arguments": arguments}}
        for i, (name, arguments) in enumerate(calls, 1)]})


def researcher_answer(request: LLMRequest) -> str:
    """The researcher's scripted model: it answers what it is asked (each ask is a fresh
    conversation, and the two asks run at once, in either order)."""
    asked = str(request.messages[-1].content).lower()
    return next(fact for word, fact in FACTS.items() if word in asked)


def desk() -> TeamConfig:
    triage = AgentConfig(
        name="triage", role="reads each request and hands it to the right desk",
        handoffs=["billing", "tech"],
        llm=ScriptedLLM([
            'A technical problem: tech will take it.\n'
            '<tool name="transfer_to_tech"><arguments>'
            '<arg name="reason">the app crashes at start since the update</arg>'
            '</arguments></tool>',
        ], provider="anthropic"))  # -> the xml format
    tech = AgentConfig(
        name="tech", role="fixes technical problems",
        tools=["ask:researcher", "service_status"], handoffs=["billing"],
        llm=ScriptedLLM([
            openai_calls(("ask_researcher", {"request": "Known crash reports for 2.3?"}),
                         ("ask_researcher", {"request": "What does the 2.3.1 patch fix?"}),
                         ("service_status", {"service": "app"})),
            "It is a known issue (KB-101); update to 2.3.1, out today, which fixes it.",
            openai_calls(("transfer_to_billing", {"reason": "a refund for a double charge"})),
        ], provider="openai"))  # -> the openai format
    researcher = AgentConfig(
        name="researcher", role="looks up known issues and release notes",
        llm=ScriptedLLM([researcher_answer] * 4, provider="openai"))
    billing = AgentConfig(
        name="billing", role="handles refunds and invoices",
        llm=ScriptedLLM(["Refunded the second charge; you will see it within 3 days."],
                        provider="openai"))
    return TeamConfig(name="support_desk", coordinator="triage",
                      members=[triage, tech, researcher, billing])


def show(member: str, history: list[Any]) -> None:
    """One member's conversation: each call paired with its result, in order."""
    print(f"--- {member}")
    for message in history:
        if isinstance(message, UserMessage):
            print(f"  user: {message.content.splitlines()[0]}")
        elif isinstance(message, AssistantMessage):
            if message.content and not message.content.lstrip().startswith("{"):
                print(f"  says: {message.content.strip().splitlines()[0]}")
            for call in message.tool_calls:
                print(f"  call  {call.id} {call.name}({json.dumps(call.arguments)})")
        elif isinstance(message, ToolResultsMessage):
            for result in message.results:
                shown = result.content if result.error is None else result.error.message
                print(f"  result {result.invocation_id} {result.status}: {shown}")


def main() -> None:
    with AgentTeam(desk(), tools=[service_status]) as team:
        for message in ("The app crashes when I open it since yesterday's update.",
                        "Also, I was charged twice this month."):
            answer = team.run(message, timeout=30)
            print(f"> {message}\n< {answer}\n")
        for name in ("triage", "tech", "billing"):
            show(name, team.agents[name].history)


if __name__ == "__main__":
    main()

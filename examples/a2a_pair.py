"""Two teams talking A2A, offline on scripted replies.

The expert team (examples/a2a_expert_team.yaml) is served with ``autobyteus-like serve-a2a``
in a process of its own on 127.0.0.1; a second team, here, calls it: its coordinator has the
tool ``ask_experts`` (``remote_agent_tool(url)``), whose call becomes an A2A task of the served
team and whose result is that team's answer; and its member ``expert`` is the remote team
itself (``RemoteA2AAgent(url)`` as its "LLM"), asked directly with ``team.send(..., to=)``.

    python examples/a2a_pair.py        (needs autobyteus-like[a2a])
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

from autobyteus_like import AgentConfig, AgentTeam, ScriptedLLM, TeamConfig
from autobyteus_like.a2a import RemoteA2AAgent, remote_agent_tool

HERE = Path(__file__).parent


def call(name: str, **arguments: str) -> str:
    return json.dumps({"name": name, "arguments": arguments})


def main() -> None:
    server = subprocess.Popen(
        [sys.executable, "-m", "autobyteus_like.cli", "serve-a2a",
         str(HERE / "a2a_expert_team.yaml")], stderr=subprocess.PIPE, text=True)
    try:
        assert server.stderr is not None
        line = server.stderr.readline()  # "serving team 'experts' over A2A at URL (...)"
        if " over A2A at " not in line:
            raise SystemExit(f"the expert team did not start: {line}{server.stderr.read()}")
        url = line.split(" at ")[1].split()[0]
        print(f"expert team served at {url}")
        script = ScriptedLLM([call("ask_experts", message="What is 2 + 2?"),
                              "The experts say: 2 + 2 = 4."])
        lead = AgentConfig(name="lead", tool_format="json", tools=["ask_experts"],
                           llm=script,  # the tool needs the network, which it is allowed:
                           tool_sandboxes={"ask_experts": {"allow_network": True}})
        ask_experts = remote_agent_tool(url, name="ask_experts", timeout_s=60,
                                        description="Ask the arithmetic experts.")
        expert = AgentConfig(name="expert", role="the remote expert team, over A2A",
                             llm=RemoteA2AAgent(url, timeout_s=60))
        config = TeamConfig(name="asking", coordinator="lead", members=[lead, expert])
        with AgentTeam(config, tools=[ask_experts]) as team:
            answer = team.run("Ask the experts what 2 + 2 is.", timeout=120)
            direct = team.send("And 2 + 2 once more?", to="expert").result(timeout=120)
        result = script.requests[1].messages[-1].content  # what the tool call returned
        print(f"ask_experts returned: {'2 + 2 = 4.' if '2 + 2 = 4.' in result else result}")
        print(f"answer: {answer}")
        print(f"expert (the remote team as a member) said: {direct}")
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(30)
        if server.stderr is not None:
            server.stderr.close()


if __name__ == "__main__":
    main()

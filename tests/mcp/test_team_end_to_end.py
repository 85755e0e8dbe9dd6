"""A scripted team on the reference filesystem server: a lead speaking XML and a writer
speaking OpenAI-style JSON, from YAML, with one write approved and one denied; and an agent in
native mode on the real OpenAI SDK, whose wire names (``fs_write_file``) map back to the
server's tools."""

from __future__ import annotations

import json
from pathlib import Path

from autobyteus_like import Agent, AgentConfig, AgentTeam
from autobyteus_like.events import ApprovalRequested
from autobyteus_like.llm._openai import OpenAILLM
from autobyteus_like.mcp import MCPToolset
from autobyteus_like.team import TeamQuiescent
from tests.llm.replay_server import ReplayServer, Stream


def xml_call(name: str, **arguments: object) -> str:
    def value(item: object) -> str:
        if isinstance(item, list):
            return "".join(f"<item>{entry}</item>" for entry in item)
        return str(item)

    args = "".join(f'<arg name="{key}">{value(item)}</arg>' for key, item in arguments.items())
    return f'<tool name="{name}"><arguments>{args}</arguments></tool>'


def openai_calls(*calls: tuple[str, dict[str, object]]) -> str:
    return json.dumps({"tool_calls": [{"function": {"name": name, "arguments": arguments}}
                                      for name, arguments in calls]})


def team_file(tmp_path: Path, filesystem: str, workspace: Path) -> Path:
    lead = [
        "Reading both notes.\n" + xml_call("fs.read_multiple_files",
                                           paths=[workspace / "a.txt", workspace / "b.txt"]),
        xml_call("send_message_to", recipient_name="writer",
                 content="Write summary.txt saying: alpha and beta."),
        "Asked the writer.",
        "The summary is written; the secret file was refused.",
    ]
    writer = [
        openai_calls(("fs.write_file", {"path": str(workspace / "summary.txt"),
                                        "content": "alpha and beta"}),
                     ("fs.write_file", {"path": str(workspace / "secret.txt"),
                                        "content": "do not"})),
        openai_calls(("fs.read_text_file", {"path": str(workspace / "summary.txt")})),
        openai_calls(("send_message_to", {"recipient_name": "lead",
                                          "content": "summary.txt written; secret.txt denied"})),
        "Done.",
    ]
    path = tmp_path / "team.yaml"
    path.write_text(json.dumps({  # JSON is YAML
        "name": "docs", "coordinator": "lead",
        "mcp_servers": {"fs": {"command": "node", "args": [filesystem, str(workspace)],
                               "requires_approval": ["write_file"]}},
        "members": [
            {"name": "lead", "system_prompt": "You lead.\n{{tools}}",
             "llm": {"provider": "scripted", "imitates": "anthropic", "responses": lead},
             "tools": ["send_message_to", "fs.read_*"]},
            {"name": "writer", "system_prompt": "You write.\n{{tools}}",
             "llm": {"provider": "scripted", "imitates": "openai", "responses": writer},
             "tools": ["fs.write_file", "fs.read_text_file", "send_message_to"],
             "auto_execute_tools": False, "approval_policy": "marked"},
        ],
    }))
    return path


def test_a_yaml_team_uses_filesystem_tools_in_xml_and_openai_formats(npm_servers, tmp_path):
    workspace = tmp_path / "work"
    workspace.mkdir()
    (workspace / "a.txt").write_text("alpha")
    (workspace / "b.txt").write_text("beta")
    team = AgentTeam.from_yaml(team_file(tmp_path, npm_servers.filesystem, workspace))
    decisions = []
    with team:
        events = team.events()
        team.send("Summarise the notes")
        while not isinstance(event := events.get(timeout=30), TeamQuiescent):
            if isinstance(event, ApprovalRequested):
                path = event.invocation.arguments["path"]
                if path.endswith("summary.txt"):
                    team.approve(event.agent, event.invocation.id)
                else:
                    team.deny(event.agent, event.invocation.id, "no secrets")
                decisions.append(Path(path).name)
        events.close()
        lead, writer = (team.agents[name].config.llm for name in ("lead", "writer"))
    assert event.answer == "The summary is written; the secret file was refused."
    assert sorted(decisions) == ["secret.txt", "summary.txt"]
    assert (workspace / "summary.txt").read_text() == "alpha and beta"
    assert not (workspace / "secret.txt").exists()
    # Each member was taught in its own format, from the server's schemas.
    assert '<tool name="fs.read_multiple_files">' in lead.requests[0].system_prompt
    assert '<arg name="paths" type="array"' in lead.requests[0].system_prompt
    assert '"tool_calls"' in writer.requests[0].system_prompt
    assert "fs.write_file" not in lead.requests[0].system_prompt  # it asked for fs.read_*
    read_back = lead.requests[1].messages[-1].content
    assert "alpha" in read_back and "beta" in read_back
    writes = writer.requests[1].messages[-1].content
    assert "Successfully wrote to" in writes and "denied: no secrets" in writes
    assert "alpha and beta" in writer.requests[2].messages[-1].content


def _chunk(delta: dict[str, object], finish: str | None = None) -> dict[str, object]:
    return {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def native_calls(*calls: tuple[str, str, dict[str, object]]) -> Stream:
    chunks = [_chunk({"role": "assistant", "content": None, "tool_calls": [
        {"index": i, "id": call_id, "type": "function",
         "function": {"name": name, "arguments": json.dumps(arguments)}}]})
        for i, (call_id, name, arguments) in enumerate(calls)]
    return Stream([*chunks, _chunk({}, "tool_calls")])


def native_text(text: str) -> Stream:
    return Stream([_chunk({"role": "assistant", "content": text}), _chunk({}, "stop")])


def native_copy(npm_servers, tmp_path, answer: str, refuse_write: bool):  # type: ignore[no-untyped-def]
    """A native-mode agent asked to copy in.txt to out.txt through the filesystem server,
    both calls needing approval (the write refused when ``refuse_write``); the requests the
    OpenAI-compatible server received."""
    (tmp_path / "in.txt").write_text("native")
    toolset = MCPToolset.stdio("node", [npm_servers.filesystem, str(tmp_path)], name="fs",
                               requires_approval=True)
    replies = [native_calls(("call_1", "fs_read_text_file", {"path": str(tmp_path / "in.txt")}),
                            ("call_2", "fs_write_file", {"path": str(tmp_path / "out.txt"),
                                                         "content": "copied"})),
               native_text(answer)]
    with ReplayServer(replies) as server:
        llm = OpenAILLM("gpt-4o-mini", base_url=server.base_url, api_key="k")
        config = AgentConfig(name="native", llm=llm, tools=["fs.read_text_file", "fs.write_file"],
                             tool_format="native", auto_execute_tools=False)
        with Agent(config, tools=[toolset]) as agent:
            events = agent.events()
            reply = agent.send("copy in.txt to out.txt")
            for _ in range(2):
                while not isinstance(event := events.get(timeout=20), ApprovalRequested):
                    pass
                if refuse_write and event.invocation.name == "fs.write_file":
                    agent.deny(event.invocation.id, "not in this directory")
                else:
                    agent.approve(event.invocation.id)
            assert reply.result(timeout=20) == answer
            events.close()
    return server.requests


def test_native_mode_sends_legal_wire_names_and_maps_them_back(npm_servers, tmp_path):
    first, second = native_copy(npm_servers, tmp_path, "Copied.", refuse_write=False)
    declared = {tool["function"]["name"]: tool["function"]["parameters"] for tool in
                first["tools"]}
    assert set(declared) == {"fs_read_text_file", "fs_write_file"}
    assert declared["fs_write_file"]["required"] == ["path", "content"]
    read, wrote = second["messages"][-2:]
    assert read == {"role": "tool", "tool_call_id": "call_1", "content": '{"content": "native"}'}
    assert wrote["tool_call_id"] == "call_2" and "Successfully wrote" in wrote["content"]
    assert (tmp_path / "out.txt").read_text() == "copied"


def test_native_mode_a_denied_call_is_a_denied_tool_message_and_nothing_is_written(
        npm_servers, tmp_path):
    requests = native_copy(npm_servers, tmp_path, "Read it; the write was refused.",
                           refuse_write=True)
    read, wrote = requests[1]["messages"][-2:]
    assert read == {"role": "tool", "tool_call_id": "call_1", "content": '{"content": "native"}'}
    assert wrote["tool_call_id"] == "call_2"
    assert "DENIED" in wrote["content"] and "not in this directory" in wrote["content"]
    assert not (tmp_path / "out.txt").exists()

"""How a run is shown: the summary agrees with the exit code, names stay whole on a narrow
terminal, and what a model or a tool wrote cannot drive the terminal."""

from __future__ import annotations

import io
import json
import shlex
from pathlib import Path

import yaml
from rich.console import Console

from autobyteus_like.cli._main import main
from autobyteus_like.cli._view import JsonView, RichView
from autobyteus_like.events import ToolResultReceived, TurnCompleted
from autobyteus_like.mail._events import TeamQuiescent
from autobyteus_like.tools._invocation import ToolResult

SEND = json.dumps({"name": "send_message_to",
                   "arguments": {"recipient_name": "scout", "content": "look"}})
ESCAPE = "\x1b[31mred\x1b[0m"


def limited_team(tmp_path: Path) -> Path:
    path = tmp_path / "team.yaml"
    path.write_text(yaml.safe_dump({"name": "t", "coordinator": "lead",
                                    "limits": {"max_tool_calls": 1}, "members": [
        {"name": "lead", "tool_format": "json", "tools": ["send_message_to"],
         "llm": {"provider": "scripted", "responses": [SEND + SEND, "Asked the scout."]}},
        {"name": "scout", "llm": {"provider": "scripted", "responses": ["seen"]}}]}))
    return path


def test_a_run_ended_by_a_limit_is_not_finished_in_json_or_in_the_view(tmp_path, capsys):
    assert main(["run", str(limited_team(tmp_path)), "-m", "go", "--json"]) == 1
    summary = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert summary["finished"] is False and summary["answer"] is None
    assert summary["error"].startswith("usage limit max_tool_calls=1 of team 't' reached")
    assert main(["run", str(limited_team(tmp_path)), "-m", "go"]) == 1
    out = capsys.readouterr().out
    assert "answer:" not in out
    assert "the run did not finish: usage limit max_tool_calls=1" in out.replace("\n", " ")


def view(width: int) -> tuple[RichView, io.StringIO]:
    out = io.StringIO()
    return RichView(console=Console(file=out, width=width, highlight=False)), out


def test_the_summary_keeps_names_whole_on_a_narrow_terminal():
    shown, out = view(80)
    for agent in ("planner_the_long_one", "failure_reporter"):
        shown.show(TurnCompleted(agent=agent, turn_id=1, answer="ok"))
    shown.summary(TeamQuiescent(agent="t", answer="ok"), 1.0)
    text = out.getvalue()
    assert "…" not in text
    assert "planner_the_long_one: turns 1, LLM calls 0, tool calls 0, failed calls 0" in text
    assert "failure_reporter:" in text
    wide, wide_out = view(200)  # where the table fits, it is a table
    wide.show(TurnCompleted(agent="planner", turn_id=1, answer="ok"))
    wide.summary(TeamQuiescent(agent="t", answer="ok"), 1.0)
    assert "┃ agent" in wide_out.getvalue()


def test_escape_sequences_are_shown_escaped_and_json_stays_exact():
    shown, out = view(200)
    result = ToolResult(invocation_id="c1", tool_name="paint", status="success",
                        content=ESCAPE)
    shown.show(ToolResultReceived(agent="lead", result=result))
    shown.show(TurnCompleted(agent="lead", turn_id=1, answer=f"done {ESCAPE}"))
    shown.summary(TeamQuiescent(agent="t", answer=f"done {ESCAPE}"), 1.0)
    text = out.getvalue()
    assert "\x1b" not in text
    assert "paint -> \\x1b[31mred\\x1b[0m" in text and "answer: done \\x1b[31m" in text
    raw = io.StringIO()
    JsonView(raw).show(ToolResultReceived(agent="lead", result=result))
    assert json.loads(raw.getvalue())["result"]["content"] == ESCAPE


def test_detach_prints_a_resume_command_that_works(software_team, capsys):
    code = main(["run", *software_team, "--message", "Build hello.py", "--session", "s1",
                 "--detach-on-approval"])
    assert code == 3
    err = capsys.readouterr().err
    command = err.split("go on with `", 1)[1].split("`", 1)[0]
    assert command.startswith("autobyteus-like run software_team.yaml --session s1 --tools "
                              "example_tools.py:make_tools")
    assert main(["approve", "s1", "call_write"]) == 0
    capsys.readouterr()
    assert main(shlex.split(command)[1:]) == 0, capsys.readouterr().err
    assert "answer: Done: the coder wrote hello.py" in capsys.readouterr().out


def test_the_live_view_shows_the_working_set_after_memory_advise():
    from autobyteus_like.tools._invocation import ToolInvocation

    shown, out = view(200)
    advice = ToolInvocation(id="c1", name="memory.advise")
    state = {"hot": [{"path": "plan.md", "why": "the plan"}, {"path": "api.md", "why": "x"}],
             "cold": [{"path": "log.txt", "why": "done"}]}
    shown.show(ToolResultReceived(agent="worker", result=ToolResult.success(advice, state)))
    assert "worker working set: hot plan.md, api.md; cold log.txt" in out.getvalue()


HANDOFF = json.dumps({"name": "transfer_to_billing", "arguments": {"reason": "a refund"}})


def test_the_live_view_and_json_show_a_hand_over_and_the_receivers_answer(tmp_path, capsys):
    path = tmp_path / "desk.yaml"
    path.write_text(yaml.safe_dump({"name": "desk", "coordinator": "triage", "members": [
        {"name": "triage", "tool_format": "json", "handoffs": ["billing"],
         "llm": {"provider": "scripted", "responses": [HANDOFF]}},
        {"name": "billing", "role": "handles money",
         "llm": {"provider": "scripted", "responses": ["Refunded."]}}]}))
    assert main(["run", str(path), "-m", "refund please"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "triage hands the conversation over to billing: a refund" in out
    assert "Refunded." in out
    assert main(["run", str(path), "-m", "refund please", "--json"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    [handed] = [line for line in lines if line["type"] == "ConversationHandedOver"]
    assert (handed["sender"], handed["receiver"], handed["reason"]) == ("triage", "billing",
                                                                        "a refund")
    assert lines[-1]["answer"] == "Refunded." and lines[-1]["finished"] is True

"""memory.advise: a working set per agent; hot files sent as they are now in one message just
before the newest user message, cold files' results dropped, kept with the session."""

import json

import pytest

from autobyteus_like import Agent, AgentConfig, ErrorCode, SandboxPolicy, ScriptedLLM
from autobyteus_like.tools import ToolContext, ToolFailure, builtin_tools
from autobyteus_like.tools.builtin._working_set import MAX_PATHS, WorkingSet


def call(name: str, **arguments: object) -> str:
    return json.dumps({"name": name, "arguments": arguments})


def agent_with(llm, tmp_path, **options) -> Agent:
    registry = builtin_tools()
    return Agent(AgentConfig(name="worker", llm=llm, tool_format="json",
                             tools=[registry.get("memory.advise"), registry.get("fs.read")],
                             sandbox=SandboxPolicy(roots=[tmp_path]), **options))


def test_schema():
    definition = builtin_tools().get("memory.advise")
    schema = definition.json_schema()
    assert set(schema["properties"]) == {"hot", "cold"}
    assert schema.get("required", []) == []
    assert definition.category == "memory"


def test_hot_files_are_sent_fresh_before_the_newest_user_message(tmp_path):
    (tmp_path / "plan.md").write_text("step 1: design\n")
    llm = ScriptedLLM([call("memory.advise", hot=[{"path": "plan.md", "why": "the plan"}]),
                       "noted", "second answer"])
    with agent_with(llm, tmp_path) as agent:
        agent.run("keep the plan at hand", timeout=20)
        (tmp_path / "plan.md").write_text("step 1: design\nstep 2: build\n")
        agent.run("what next?", timeout=20)
    after_advice, next_turn = llm.requests[1], llm.requests[2]
    for request in (after_advice, next_turn):
        assert "plan.md" not in request.system_prompt
    hot = [m for m in next_turn.messages if m.content.startswith("Your working set")]
    assert len(hot) == 1
    assert "step 2: build" in hot[0].content and "(the plan)" in hot[0].content
    assert next_turn.messages[-2] is hot[0] and next_turn.messages[-1].content == "what next?"
    # what came before is sent unchanged (a provider's cache keeps it)
    assert [m.content for m in next_turn.messages[:3]] == \
        [m.content for m in after_advice.messages if not m.content.startswith("Your working")]


def test_cold_paths_results_are_dropped_but_the_call_stays(tmp_path):
    (tmp_path / "log.txt").write_text("a very long and now useless log\n")
    llm = ScriptedLLM([call("fs.read", path="log.txt"),
                       call("memory.advise", cold=[{"path": "./log.txt", "why": "done"}]),
                       "ok"])
    with agent_with(llm, tmp_path) as agent:
        agent.run("read the log, then forget it", timeout=20)
        kept = agent.history_json()
    assert "useless log" in kept  # the agent's own history keeps everything
    before, after = llm.requests[1], llm.requests[2]
    assert "useless log" in "".join(m.content for m in before.messages)
    sent = "".join(m.content for m in after.messages)
    assert "useless log" not in sent
    assert "dropped from context: log.txt is cold: done" in sent
    assert '"fs.read"' in sent  # the call itself is still there


def test_sandbox_and_hostile_arguments(tmp_path, tmp_path_factory):
    advise = builtin_tools().get("memory.advise")
    outside = tmp_path_factory.mktemp("outside")
    (outside / "secret.md").write_text("secret\n")
    (tmp_path / "link.md").symlink_to(outside / "secret.md")
    (tmp_path / "big.md").write_text("x" * 5000)
    working_set = WorkingSet()

    def attempt(limits=None, **arguments) -> ToolFailure:
        context = ToolContext(sandbox=SandboxPolicy(roots=[tmp_path], **(limits or {})),
                              working_set=working_set)
        with pytest.raises(ToolFailure) as caught:
            advise.run(arguments, context)
        return caught.value

    assert attempt(hot=[{"path": "../x.md", "why": "w"}]).code == ErrorCode.PERMISSION_DENIED
    assert attempt(hot=[{"path": "link.md", "why": "w"}]).code == ErrorCode.PERMISSION_DENIED
    assert attempt(cold=[{"path": "/etc/passwd", "why": "w"}]).code == \
        ErrorCode.PERMISSION_DENIED
    assert attempt(hot=[{"path": "missing.md", "why": "w"}]).code == ErrorCode.NOT_FOUND
    assert attempt(limits={"max_read_bytes": 100},
                   hot=[{"path": "big.md", "why": "w"}]).code == ErrorCode.QUOTA_EXCEEDED
    assert attempt().code == ErrorCode.INVALID_ARGS
    assert working_set.snapshot() == {"hot": [], "cold": []}
    with pytest.raises(ToolFailure) as caught:  # outside an agent: no working set
        advise.run({"hot": [{"path": "big.md", "why": "w"}]},
                   ToolContext(sandbox=SandboxPolicy(roots=[tmp_path])))
    assert caught.value.code == ErrorCode.NOT_AVAILABLE


def test_the_working_set_is_bounded_and_the_latest_advice_wins():
    working_set = WorkingSet()
    working_set.advise({"a": "1"}, {})
    working_set.advise({}, {"a": "2"})
    assert working_set.snapshot() == {"hot": [], "cold": [{"path": "a", "why": "2"}]}
    working_set.advise({f"f{n}": "" for n in range(MAX_PATHS + 5)}, {})
    hot = working_set.hot()
    assert len(hot) == MAX_PATHS and "f0" not in hot and f"f{MAX_PATHS + 4}" in hot


def test_huge_hot_files_are_cut(tmp_path):
    from autobyteus_like.history._hot_paths import HOT_FILE_CHARS, working_set_context
    from autobyteus_like.history._messages import UserMessage

    (tmp_path / "huge.md").write_text("y" * (HOT_FILE_CHARS * 3))
    working_set = WorkingSet({"hot": [{"path": "huge.md", "why": "w"}]})
    shaped = working_set_context(working_set, SandboxPolicy(roots=[tmp_path]))(
        [UserMessage(content="hi")])
    assert len(shaped[0].content) < HOT_FILE_CHARS + 500 and "[cut at" in shaped[0].content


def test_the_working_set_is_kept_with_the_session_and_restored(tmp_path):
    from autobyteus_like.agent._working_memory import working_set_of
    from autobyteus_like.store import Session

    (tmp_path / "plan.md").write_text("the plan\n")
    store = tmp_path / "store.db"
    first = ScriptedLLM([call("memory.advise", hot=[{"path": "plan.md", "why": "w"}]), "ok"])
    registry = builtin_tools()
    config = AgentConfig(name="worker", llm=first, tool_format="json",
                         tools=[registry.get("memory.advise")],
                         sandbox=SandboxPolicy(roots=[tmp_path]))
    with Agent(config, session=Session("s1", store)) as agent:
        agent.run("keep the plan", timeout=20)
    second = ScriptedLLM(["-", "-", "ok"])  # a restored history: its third reply is next
    again = AgentConfig(name="worker", llm=second, tool_format="json",
                        tools=[registry.get("memory.advise")],
                        sandbox=SandboxPolicy(roots=[tmp_path]))
    with Agent(again, session=Session("s1", store)) as agent:
        assert working_set_of(agent).snapshot()["hot"] == [{"path": "plan.md", "why": "w"}]
        agent.run("and now?", timeout=20)
    assert "the plan" in second.requests[-1].messages[-2].content


def test_a_hot_file_swapped_for_a_link_out_is_never_sent(tmp_path, tmp_path_factory):
    from autobyteus_like.history._hot_paths import working_set_context
    from autobyteus_like.history._messages import UserMessage

    outside = tmp_path_factory.mktemp("outside")
    (outside / "secret.md").write_text("the secret\n")
    (tmp_path / "plan.md").write_text("the plan\n")
    working_set = WorkingSet({"hot": [{"path": "plan.md", "why": "w"}]})
    shape = working_set_context(working_set, SandboxPolicy(roots=[tmp_path]))
    assert "the plan" in shape([UserMessage(content="hi")])[0].content
    (tmp_path / "plan.md").unlink()
    (tmp_path / "plan.md").symlink_to(outside / "secret.md")
    sent = shape([UserMessage(content="hi")])[0].content
    assert "the secret" not in sent and "plan.md (unavailable:" in sent

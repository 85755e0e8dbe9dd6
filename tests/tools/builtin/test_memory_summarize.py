"""memory.summarize: the agent's own model (a side request, counted in the run's usage and
limits) summarises files in pieces that fit its context, into a file inside the sandbox."""

import json
import threading

import pytest

from autobyteus_like import (
    Agent,
    AgentConfig,
    ErrorCode,
    SandboxPolicy,
    ScriptedLLM,
    UsageLimitExceededError,
)
from autobyteus_like.llm._messages import LLMRequest
from autobyteus_like.tools import ToolContext, ToolFailure, builtin_tools
from autobyteus_like.usage import UsageLimits

NOTES = "The launch is on May 3.\nAlice owns the budget.\nOpen: who signs the contract?\n"


def call(name: str, **arguments: object) -> str:
    return json.dumps({"name": name, "arguments": arguments})


def summarizer(answer: str):
    """A scripted reply for side requests: the summary, as the model would write it."""

    def reply(request: LLMRequest) -> str:
        assert request.system_prompt.startswith("You summarise"), request.system_prompt
        return answer

    return reply


def tools():
    registry = builtin_tools()
    return [registry.get("memory.summarize"), registry.get("fs.read")]


def agent_with(llm, tmp_path, **options) -> Agent:
    return Agent(AgentConfig(name="keeper", llm=llm, tools=tools(), tool_format="json",
                             sandbox=SandboxPolicy(roots=[tmp_path]), **options))


def results_shown(llm: ScriptedLLM, request: int) -> list[dict]:
    text = llm.requests[request].messages[-1].content
    return [json.loads(line)["tool_result"] for line in text.splitlines()[1:]]


def test_schema():
    definition = builtin_tools().get("memory.summarize")
    schema = definition.json_schema()
    assert set(schema["properties"]) == {"target_paths", "into_path", "style", "keep_refs"}
    assert schema["required"] == ["target_paths", "into_path"]
    assert schema["properties"]["style"]["enum"] == ["bullet", "narrative", "schema"]
    assert definition.category == "memory"


def test_the_agents_model_writes_the_summary_and_the_request_is_counted(tmp_path):
    (tmp_path / "notes.md").write_text(NOTES)
    llm = ScriptedLLM([call("memory.summarize", target_paths=["notes.md"],
                            into_path="memory/notes-summary.md", style="bullet"),
                       summarizer("- Launch on May 3 (notes.md:1-1)"), "done"])
    with agent_with(llm, tmp_path) as agent:
        assert agent.run("summarise the notes", timeout=20) == "done"
        usage = agent.usage.run
    assert (tmp_path / "memory" / "notes-summary.md").read_text() == \
        "- Launch on May 3 (notes.md:1-1)\n"
    side = llm.requests[1]
    assert "bullet points" in side.system_prompt and "path:FIRST-LAST" in side.system_prompt
    assert "notes.md:2| Alice owns the budget." in side.messages[0].content
    assert usage.llm_calls == 3  # two of the turn, one side request
    [result] = results_shown(llm, 2)
    assert result["content"]["model_requests"] == 1
    # the side request is no part of the conversation
    assert all("You summarise" not in m.content for m in llm.requests[2].messages)


def test_a_request_over_the_runs_limit_is_refused_and_never_sent(tmp_path):
    (tmp_path / "notes.md").write_text(NOTES)
    llm = ScriptedLLM([call("memory.summarize", target_paths=["notes.md"], into_path="s.md"),
                       summarizer("never"), "never either"])
    with agent_with(llm, tmp_path, limits=UsageLimits(max_llm_calls=1)) as agent, \
            pytest.raises(UsageLimitExceededError, match="max_llm_calls"):
        agent.run("go", timeout=20)
    assert '"code":"LIMIT"' in agent.history_json()  # the tool's result says why
    assert len(llm.requests) == 1  # the side request was refused before it was sent
    assert not (tmp_path / "s.md").exists()


class SmallModel(ScriptedLLM):
    context_tokens = 1500  # pieces of at most ~1000 characters


def test_large_inputs_are_summarised_in_pieces_then_merged(tmp_path):
    lines = [f"Fact number {n}: item {n} costs {n * 7} euros." for n in range(1, 81)]
    (tmp_path / "facts.md").write_text("\n".join(lines) + "\n")
    parts = iter(range(1, 100))

    def reply(request: LLMRequest) -> str:  # side requests until the turn goes on
        if not request.system_prompt.startswith("You summarise"):
            return "ok"
        if "partial summaries" in request.system_prompt:
            return "the merged summary"
        return f"part {next(parts)}"

    llm = SmallModel([call("memory.summarize", target_paths=["facts.md"], into_path="f.md",
                           style="narrative")] + [reply] * 40)
    with agent_with(llm, tmp_path) as agent:
        agent.run("go", timeout=30)
    side = [r for r in llm.requests if r.system_prompt.startswith("You summarise")]
    pieces = [r for r in side if "partial summaries" not in r.system_prompt]
    merges = [r for r in side if "partial summaries" in r.system_prompt]
    assert len(pieces) >= 3 and merges
    assert all(len(r.messages[0].content) <= 1000 for r in pieces)
    covered = "\n".join(r.messages[0].content for r in pieces)
    assert all(f"facts.md:{n}| {lines[n - 1]}" in covered for n in range(1, 81))
    assert "part 1" in merges[0].messages[0].content
    assert (tmp_path / "f.md").read_text() == "the merged summary\n"


def test_sandbox_and_hostile_arguments(tmp_path):
    (tmp_path / "notes.md").write_text(NOTES)
    (tmp_path / "big.md").write_text("x" * 5000)
    summarize = builtin_tools().get("memory.summarize")

    class Side:
        context_tokens = 4000

        def ask(self, instructions, text, *, llm=None, cancel=None):
            return "- summary"

    def attempt(limits=None, **arguments) -> ToolFailure:
        context = ToolContext(sandbox=SandboxPolicy(roots=[tmp_path], **(limits or {})),
                              side_llm=Side())
        with pytest.raises(ToolFailure) as caught:
            summarize.run(arguments, context)
        return caught.value

    assert attempt(target_paths=["../etc/passwd"], into_path="s.md").code == \
        ErrorCode.PERMISSION_DENIED
    assert attempt(target_paths=["notes.md"], into_path="/etc/evil.md").code == \
        ErrorCode.PERMISSION_DENIED
    assert attempt(target_paths=["missing.md"], into_path="s.md").code == ErrorCode.NOT_FOUND
    assert attempt(limits={"max_read_bytes": 1000}, target_paths=["big.md"],
                   into_path="s.md").code == ErrorCode.QUOTA_EXCEEDED
    assert attempt(target_paths=[], into_path="s.md").code == ErrorCode.INVALID_ARGS
    assert not (tmp_path / "s.md").exists()
    outside = ToolContext(sandbox=SandboxPolicy(roots=[tmp_path]))  # no agent: no model
    with pytest.raises(ToolFailure) as caught:
        summarize.run({"target_paths": ["notes.md"], "into_path": "s.md"}, outside)
    assert caught.value.code == ErrorCode.NOT_AVAILABLE


def test_a_call_without_why_is_refused_when_why_is_required(tmp_path):
    (tmp_path / "notes.md").write_text(NOTES)
    llm = ScriptedLLM([call("memory.summarize", target_paths=["notes.md"], into_path="s.md"),
                       "ok"])
    with agent_with(llm, tmp_path, require_why=True) as agent:
        agent.run("go", timeout=20)
    [result] = results_shown(llm, 1)
    assert result["content"]["code"] == "MISSING_WHY"
    assert len(llm.requests) == 2  # no side request was made


class BlockingSummarizer(ScriptedLLM):
    """Scripted for the turn; a side request blocks until it is cancelled (a server that
    never answers), and says whether it was."""

    def __init__(self, responses) -> None:
        super().__init__(responses)
        self.entered = threading.Event()
        self.cut: list[bool] = []

    def stream(self, request, cancel):
        if request.system_prompt.startswith("You summarise"):
            self.entered.set()
            self.cut.append(cancel.wait(30))
            return iter(())
        return super().stream(request, cancel)


def test_stopping_the_agent_cuts_a_side_request_at_once(tmp_path):
    (tmp_path / "notes.md").write_text(NOTES)
    llm = BlockingSummarizer([call("memory.summarize", target_paths=["notes.md"],
                                   into_path="s.md"), "done"])
    agent = agent_with(llm, tmp_path).start()
    try:
        agent.send("go")
        assert llm.entered.wait(20)
    finally:
        agent.stop()
    assert llm.cut == [True]  # the stream's cancel was set by the stop, not by its timeout
    assert not (tmp_path / "s.md").exists()
    assert not [t for t in threading.enumerate() if t.name.startswith("keeper")]


def test_pieces_keep_whole_numbered_lines_within_the_budget():
    from autobyteus_like.tools.builtin._memory import pieces

    documents = [("a.md", "\n".join(f"line {n}" for n in range(1, 200))), ("b.md", "x" * 5000)]
    cut = pieces(documents, 300, keep_refs=True)
    assert all(len(piece) <= 300 for piece in cut)
    assert all(piece.splitlines()[0] in ("=== a.md ===", "=== b.md ===") for piece in cut)
    text = "\n".join(cut)
    assert all(f"a.md:{n}| line {n}\n" in text + "\n" for n in range(1, 200))
    assert "b.md:1| xxx" in text  # a line longer than a piece is cut, not lost whole
    plain = pieces(documents, 300, keep_refs=False)
    assert "a.md:" not in "\n".join(plain) and "line 199" in "\n".join(plain)


def test_a_configured_context_sizes_the_pieces(tmp_path):
    from autobyteus_like.tools.builtin import memory_tools

    (tmp_path / "long.md").write_text("\n".join(f"fact {n}" for n in range(1000)))
    asked: list[str] = []

    class Side:
        context_tokens = 100_000  # what the model says; the tool's own setting wins

        def ask(self, instructions, text, *, llm=None, cancel=None):
            asked.append(text)
            return "- ok"

    summarize, _ = memory_tools(context_tokens=1500)
    context = ToolContext(sandbox=SandboxPolicy(roots=[tmp_path]), side_llm=Side())
    done = summarize.run({"target_paths": ["long.md"], "into_path": "s.md"}, context)
    assert done["pieces"] > 5 and all(len(text) <= 1000 for text in asked[:done["pieces"]])


@pytest.mark.parametrize(("style", "asked_for"), [
    ("bullet", "short bullet points"), ("narrative", "paragraphs of plain prose"),
    ("schema", "an outline of the structure")])
@pytest.mark.parametrize("keep_refs", [True, False])
def test_each_style_and_keep_refs_reach_the_model_as_asked(tmp_path, style, asked_for,
                                                          keep_refs):
    from autobyteus_like.tools.builtin import memory_tools

    (tmp_path / "notes.md").write_text(NOTES)
    asked: list[tuple[str, str]] = []

    class Side:
        context_tokens = 100_000

        def ask(self, instructions, text, *, llm=None, cancel=None):
            asked.append((instructions, text))
            return "the summary"

    summarize, _ = memory_tools()
    context = ToolContext(sandbox=SandboxPolicy(roots=[tmp_path]), side_llm=Side())
    summarize.run({"target_paths": ["notes.md"], "into_path": "s.md", "style": style,
                   "keep_refs": keep_refs}, context)
    [(instructions, text)] = asked
    assert asked_for in instructions
    assert ("path:FIRST-LAST" in instructions) is keep_refs
    assert ("notes.md:2| Alice owns the budget." in text) is keep_refs
    assert (tmp_path / "s.md").read_text() == "the summary\n"

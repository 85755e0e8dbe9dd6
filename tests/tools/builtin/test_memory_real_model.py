"""memory.summarize on the real model (SmolLM2-135M on llama.cpp, the session fixture
``llama_server``; skips, saying why, where it is not set up): the side request reaches the
real server, its answer becomes the summary file, and the request and its response are counted
in the agent's run. What the model writes is its own; what is asserted is ours."""

from __future__ import annotations

import json

import pytest

from autobyteus_like import Agent, AgentConfig, SandboxPolicy, ScriptedLLM
from autobyteus_like.llm._spec import LLMSpec
from autobyteus_like.tools.builtin import memory_tools
from tests.llama_server import NATIVE_MODEL

pytestmark = pytest.mark.slow  # a real model on the CPU: seconds a request


def test_a_real_model_summarises_and_its_tokens_are_counted(llama_server, tmp_path):
    (tmp_path / "notes.md").write_text("The launch is on May 3.\nAlice owns the budget.\n")
    real = LLMSpec.model_validate({
        "provider": "llamacpp", "model": NATIVE_MODEL, "base_url": llama_server.base_url,
        "temperature": 0, "max_tokens": 48, "timeout_s": 120, "max_retries": 0}).build()
    # the tool's own model (the agent's is scripted), sized for the server's context
    summarize, _ = memory_tools(llm=real, context_tokens=2048)
    call = json.dumps({"name": "memory.summarize",
                       "arguments": {"target_paths": ["notes.md"], "into_path": "s.md"}})
    agent = Agent(AgentConfig(name="keeper", llm=ScriptedLLM([call, "done"]), tool_format="json",
                              tools=[summarize], sandbox=SandboxPolicy(roots=[tmp_path])))
    with agent:
        assert agent.run("summarise", timeout=180) == "done"
        usage = agent.usage.run
    written = (tmp_path / "s.md").read_text()
    assert written.strip() and written.endswith("\n")
    assert written.strip() not in ("done", call)  # the real model's words, not the script's
    assert usage.llm_calls == 3  # the side request claimed like the turn's two
    # its response reached the meter too: llama.cpp's server streams no token usage, so it
    # is counted among the responses without usage, beside the two scripted ones
    assert usage.unreported == 3

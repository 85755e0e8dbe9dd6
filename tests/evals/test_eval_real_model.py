"""The CI's slice of eval-formats on the real model (SmolLM2-135M on llama.cpp's server, plain
chatml: no native tools): 2 formats x 2 tasks x 1 repeat. It prints the table, writes the JSON
and the PNG, stores the verdict, and an agent with tool_format: auto then starts from it
without a native request, in its events and in the server's log (the full table is made by
hand: benchmarks/eval_formats.py)."""

from __future__ import annotations

import contextlib
import json

import pytest

from autobyteus_like import Agent, AgentConfig
from autobyteus_like.cli import main
from autobyteus_like.errors import AgentTurnError
from autobyteus_like.evals._builtin_tools import add
from autobyteus_like.events import LLMAdapted, LLMRequestFailed, LLMRequestStarted
from autobyteus_like.store._model_formats import ModelFormats, ModelKey
from tests.llama_server import TEXT_MODEL

pytestmark = pytest.mark.slow  # a real model on the CPU: seconds a request


SLICE = """name: ci-slice
tools: ["autobyteus_like.evals._builtin_tools:add"]
tasks:
  - id: add_numbers
    prompt: Use the add tool to add 17 and 25, then tell me the sum.
    calls: [{tool: add, args: {a: 17, b: 25}}]
  - id: no_tool
    prompt: What is the capital of France? Answer in one word.
    answer: {regex: "(?i)paris"}
"""
"""Two tasks of the built-in suite with its one tool they need: a small prompt for a CPU."""


def test_the_ci_slice_stores_a_verdict_that_auto_starts_from(llama_server, tmp_path, capsys):
    llm = {"provider": "llamacpp", "model": TEXT_MODEL, "base_url": llama_server.base_url,
           "temperature": 0, "max_tokens": 48, "timeout_s": 300, "max_retries": 0}
    suite = tmp_path / "slice.yaml"
    suite.write_text(SLICE)
    code = main(["eval-formats", "--llm", json.dumps(llm), "--formats", "xml,json",
                 "--suite", str(suite), "--max-iterations", "2", "--manifest", "compact",
                 "--json", str(tmp_path / "e.json"), "--plot", str(tmp_path / "e.png"),
                 "--timeout", "600"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "(4 of 4 runs)" in out
    data = json.loads((tmp_path / "e.json").read_text())
    assert [s["format"] for s in data["scores"]] == ["xml", "json"]
    assert sum(s["server_errors"] for s in data["scores"]) == 0, llama_server.log_text()[-2000:]
    assert (tmp_path / "e.png").read_bytes()[:4] == b"\x89PNG"
    verdict = data["verdict"]
    assert verdict in ("xml", "json"), f"no format succeeded: {out}"
    known = ModelFormats.cached().known(
        ModelKey("llamacpp", llama_server.base_url.rstrip("/"), TEXT_MODEL))
    assert known is not None and known.verdict == verdict

    agent = Agent(AgentConfig(name="smol", llm=llm, tools=[add], tool_format="auto",
                              manifest="compact", max_iterations=1))
    posts_before = _posts(llama_server.log_text())
    with agent:
        events = agent.events()
        with contextlib.suppress(AgentTurnError):  # what the model answers is not the point
            agent.run("Use the add tool to add 17 and 25.", timeout=300)
        agent.stop()
        seen = list(iter(lambda: events.get(timeout=1), None))
    adapted = [e for e in seen if isinstance(e, LLMAdapted)]
    assert adapted and adapted[0].now == verdict and "eval-formats verdict" in adapted[0].reason
    assert not any(e.what == "wire" or "native" in e.reason for e in adapted)  # no negotiation
    assert not any(isinstance(e, LLMRequestFailed) for e in seen)
    # the server's log: one request per request the agent made, none to probe native tools
    started = sum(isinstance(e, LLMRequestStarted) for e in seen)
    assert _posts(llama_server.log_text()) - posts_before == started == 1


def _posts(log: str) -> int:
    return log.count("POST /v1/chat/completions")

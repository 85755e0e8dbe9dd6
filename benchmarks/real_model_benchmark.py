"""The framework's share of a real-model turn: an agent's turn on SmolLM2-135M behind llama.cpp's
server, against the model's own time for the same requests sent raw, measured in the same run.

The agent's turn is one user message with native tool calling (the model calls ``add``, the
tool runs, the model answers). Every request body the agent sends is recorded, then the same
bodies are sent again with plain ``httpx`` (no SDK, no agent): that is the model's own time
(the server's prompt cache sees the same sequence both ways). The share is (turn - raw) / raw.
Turns alternate with their reference so a change in the machine's load falls on both.

Run: ``python benchmarks/real_model_benchmark.py`` (needs the llama.cpp virtualenv that
``.ci/run`` sets up, and the ``openai`` extra).
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import httpx2 as httpx  # the httpx the openai SDK uses

from autobyteus_like import Agent, AgentConfig, tool
from autobyteus_like.llm import LLMRequest
from autobyteus_like.llm._openai import OpenAILLM

ROUNDS = 9


@tool
def add(a: int, b: int) -> int:
    """Add two whole numbers.

    Args:
        a: The first number.
        b: The second number.
    """
    return a + b


class RecordingLLM(OpenAILLM):
    """OpenAILLM that keeps each request body as it went on the wire."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.bodies: list[dict[str, Any]] = []

    def request_body(self, request: LLMRequest, *, stream: bool = True) -> dict[str, Any]:
        body = super().request_body(request, stream=stream)
        self.bodies.append(body)
        return body



def agent_turn(base_url: str) -> tuple[float, list[dict[str, Any]]]:
    llm = RecordingLLM("smollm2", provider="llamacpp", base_url=base_url, temperature=0,
                       max_tokens=32, timeout_s=300, max_retries=0)
    config = AgentConfig(name="bench", llm=llm, tools=[add], tool_format="native",
                         tool_choice={"tool": "add"}, max_iterations=2)
    started = time.perf_counter()
    with Agent(config) as agent:
        try:
            agent.run("Call the add tool to add 2 and 3.", timeout=600)
        except Exception as error:  # max_iterations, if the model calls again: still a turn
            print(f"  (turn ended: {type(error).__name__})")
    return time.perf_counter() - started, llm.bodies


def raw_requests(base_url: str, bodies: list[dict[str, Any]]) -> float:
    started = time.perf_counter()
    # One connection per request, as the agent's client does (an ended stream may leave a
    # kept-alive connection unusable).
    with httpx.Client(timeout=300, headers={"Connection": "close"}) as client:
        for body in bodies:
            if body.get("stream"):
                with client.stream("POST", f"{base_url}/chat/completions", json=body) as reply:
                    for _ in reply.iter_bytes():
                        pass
            else:
                client.post(f"{base_url}/chat/completions", json=body).read()
    return time.perf_counter() - started


def main() -> None:
    from tests.llama_server import LlamaServer

    server = LlamaServer().start()
    try:
        agent_turn(server.base_url)  # warm-up: load, first prompt, the unstreamed switch
        turns, raws = [], []
        for _ in range(ROUNDS):
            seconds, bodies = agent_turn(server.base_url)
            turns.append(seconds)
            raws.append(raw_requests(server.base_url, bodies))
        shares = [(turn - raw) / raw for turn, raw in zip(turns, raws, strict=True)]
        print(f"requests per turn: {len(bodies)}")
        print(f"agent turn: median {statistics.median(turns):.3f} s "
              f"(min {min(turns):.3f})")
        print(f"model alone (same bodies, raw httpx): median {statistics.median(raws):.3f} s "
              f"(min {min(raws):.3f})")
        print(f"framework share, best turn over best raw: {min(turns) / min(raws) - 1:+.1%}")
        print(f"framework share: median {statistics.median(shares):+.1%} "
              f"(per round: {', '.join(f'{s:+.1%}' for s in shares)})")
    finally:
        server.stop()


if __name__ == "__main__":
    main()

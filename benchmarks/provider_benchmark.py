"""What prompt caching and the Responses reader cost per request.

    python benchmarks/provider_benchmark.py

1. Anthropic ``request_body`` for a 200-message native conversation (100 tool round trips)
   with cache breakpoints (the default) against the same without (``prompt_cache=False``):
   the marks and the text-as-blocks rewrite, as a ratio. Goal: under 1.2x.
2. ``ResponsesStreamReader`` reading the events of the recorded gpt-5.5 stream
   (``tests/fixtures/openai_responses/reasoning_text_function_call.sse``, as dicts) against
   ``json.loads`` of the same events (the floor every reader pays), as a ratio.

Both sides of each ratio are timed by turns, best of 15 rounds, so load on the machine falls on
both alike.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

from autobyteus_like import tool
from autobyteus_like.llm import LLMRequest, Message
from autobyteus_like.llm._anthropic import AnthropicLLM
from autobyteus_like.llm._openai_responses_wire import ResponsesStreamReader
from autobyteus_like.llm._wire_names import WireNames
from autobyteus_like.tools import ToolInvocation, ToolResult

HERE = Path(__file__).resolve().parent.parent
RECORDED = HERE / "tests" / "fixtures" / "openai_responses" / "reasoning_text_function_call.sse"


@tool
def lookup(query: str, limit: int = 10) -> str:
    """Look something up."""
    return query


def conversation(round_trips: int) -> LLMRequest:
    messages: list[Message] = [Message("user", "Find the answers, one by one.")]
    for n in range(round_trips):
        call = ToolInvocation(id=f"toolu_{n}", name="lookup", arguments={"query": f"q{n}"})
        messages += [Message("assistant", f"Looking up q{n}.", tool_calls=(call,)),
                     Message("tool", "", tool_results=(ToolResult.success(call, "x" * 400),))]
    return LLMRequest("You are careful. " * 50, tuple(messages), tools=(lookup,))


def best(run: Callable[[], object], rounds: int = 15, repeat: int = 20) -> float:
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        for _ in range(repeat):
            run()
        times.append((time.perf_counter() - started) / repeat)
    return min(times)


def paired(one: Callable[[], object], other: Callable[[], object]) -> tuple[float, float]:
    """Best times of both, measured by turns."""
    firsts, seconds = [], []
    for _ in range(5):
        firsts.append(best(one, rounds=3))
        seconds.append(best(other, rounds=3))
    return min(firsts), min(seconds)


def main() -> None:
    request = conversation(100)
    cached = AnthropicLLM("claude-sonnet-5", api_key="k")
    plain = AnthropicLLM("claude-sonnet-5", api_key="k", prompt_cache=False)
    on, off = paired(lambda: cached.request_body(request), lambda: plain.request_body(request))
    print(f"anthropic request_body, 201 messages: caching on {on * 1e3:.3f} ms, off "
          f"{off * 1e3:.3f} ms, ratio {on / off:.2f}x (goal < 1.2x)")

    texts = [line[len("data: "):] for line in RECORDED.read_text().splitlines()
             if line.startswith("data: ")]
    events = [json.loads(text) for text in texts]
    names = WireNames(["get_capital"])

    def read() -> None:
        reader = ResponsesStreamReader(names)
        for event in events:
            reader.feed(event)

    reading, parsing = paired(read, lambda: [json.loads(text) for text in texts])
    print(f"Responses reader, {len(events)} recorded events: {reading * 1e6:.1f} us, json.loads "
          f"of them {parsing * 1e6:.1f} us, ratio {reading / parsing:.2f}x")


if __name__ == "__main__":
    main()

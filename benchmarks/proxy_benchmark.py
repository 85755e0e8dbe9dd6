"""What the proxy adds to a request: the official openai SDK calling a local upstream directly,
against the same SDK calling it through ``autobyteus-like proxy``, in the same run.

The upstream is a real HTTP server on 127.0.0.1 (``tests/chat_server.py``) whose model answers
at once: an XML call when it was taught XML, else a short text. Four kinds of request, each
timed per request (median of ROUNDS, the kinds taken in turns so a change in the machine's load
falls on all alike):

- direct: the SDK to the upstream, no tools (the reference);
- passthrough: the same request through the proxy (no tools: relayed untouched);
- tools, whole: a request with one tool through the proxy (XML taught, the call parsed back);
- tools, streamed: the same, streamed (each call as a tool_calls delta).

With ``--llama``, the same on SmolLM2-135M behind llama.cpp's server (the virtualenv ``.ci/run``
sets up), where the model's own time dominates.

Run: ``python -m benchmarks.proxy_benchmark [--rounds N] [--llama]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable
from typing import Any

import openai

from autobyteus_like.proxy import ProxyServer, ProxySettings
from autobyteus_like.store._model_formats import ModelFormats
from tests.chat_server import ChatServer, Reply, system_text

WEATHER: Any = {"type": "function", "function": {
    "name": "get_weather", "description": "The weather in a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                   "required": ["city"]}}}
ASK: Any = [{"role": "user", "content": "What is the weather in Paris?"}]


def instant_model(body: dict[str, Any]) -> Reply:
    if '<tool name="' in system_text(body):
        return Reply('<tool name="get_weather"><arguments><arg name="city">Paris</arg>'
                     '</arguments></tool>')
    return Reply("It is sunny in Paris today, 18 degrees.")


def timed(call: Callable[[], object]) -> float:
    started = time.perf_counter()
    call()
    return time.perf_counter() - started


def measure(upstream_url: str, proxy_url: str, model: str, rounds: int,
            **options: Any) -> dict[str, list[float]]:
    direct = openai.OpenAI(base_url=upstream_url, api_key="unused", max_retries=0)
    proxied = openai.OpenAI(base_url=proxy_url, api_key="unused", max_retries=0)

    def streamed() -> None:
        for _ in proxied.chat.completions.create(model=model, messages=ASK, tools=[WEATHER],
                                                 stream=True, **options):
            pass

    kinds: dict[str, Callable[[], object]] = {
        "direct (reference)": lambda: direct.chat.completions.create(
            model=model, messages=ASK, **options),
        "passthrough": lambda: proxied.chat.completions.create(
            model=model, messages=ASK, **options),
        "tools, whole": lambda: proxied.chat.completions.create(
            model=model, messages=ASK, tools=[WEATHER], **options),
        "tools, streamed": streamed,
    }
    for call in kinds.values():  # warm: connections, imports, the server's prompt cache
        call()
    times: dict[str, list[float]] = {name: [] for name in kinds}
    for _ in range(rounds):
        for name, call in kinds.items():
            times[name].append(timed(call))
    direct.close()
    proxied.close()
    return times


def report(title: str, times: dict[str, list[float]]) -> None:
    reference = statistics.median(times["direct (reference)"])
    print(f"\n{title}")
    print("| request | median ms | added ms vs direct | ratio to direct |")
    print("| --- | --- | --- | --- |")
    for name, values in times.items():
        median = statistics.median(values)
        print(f"| {name} | {median * 1000:.1f} | {(median - reference) * 1000:+.1f} | "
              f"{median / reference:.2f}x |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=60)
    parser.add_argument("--llama", action="store_true", help="also on SmolLM2 (llama.cpp)")
    args = parser.parse_args()
    print(f"load: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} "
          f"{os.getloadavg()[2]:.2f} (1, 5, 15 min)")
    with ChatServer(instant_model) as upstream, ProxyServer(ProxySettings(
            upstream.base_url, tool_format="xml")) as proxy:
        report(f"instant upstream, {args.rounds} rounds",
               measure(upstream.base_url, proxy.url, "m", args.rounds))
    if args.llama:
        import pytest

        from tests.llama_server import TEXT_MODEL, LlamaServer

        try:
            server = LlamaServer().start()
        except pytest.skip.Exception as skipped:
            print(f"\nSmolLM2: skipped ({skipped})")
            return
        try:
            settings = ProxySettings(server.base_url, tool_format="xml", provider="llamacpp",
                                     formats=ModelFormats.cached())
            with ProxyServer(settings) as proxy:
                rounds = max(3, args.rounds // 10)
                report(f"SmolLM2-135M on llama.cpp (plain chatml), {rounds} rounds",
                       measure(server.base_url, proxy.url, TEXT_MODEL, rounds,
                               temperature=0, max_tokens=32))
        finally:
            server.stop()
    print(f"\nload after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()

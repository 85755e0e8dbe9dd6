"""The proxy, driven by the official openai SDK, in front of a real HTTP server on 127.0.0.1
(a model that writes its calls in the format it was taught, or recorded real traffic): tools
taught in a text format come back as proper tool_calls, streamed (each call in one delta, as
soon as it is complete) and whole; earlier calls and results are written back in the format;
requests without tools pass through untouched; upstream errors keep their status; the token,
body and concurrency limits hold; a malformed call is an error or a re-ask, never lost."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import httpx2
import openai
import pytest

from autobyteus_like.proxy import ProxyServer, ProxySettings
from autobyteus_like.store._model_formats import ModelFormats, ModelKey
from tests.chat_server import ChatServer, Reply, last_user_text, system_text
from tests.llm.replay_server import Recorded, ReplayServer

REALWIRE = Path(__file__).resolve().parents[3] / "shared" / "realwire" / "fixtures" / "openai"
WEATHER = {"type": "function", "function": {
    "name": "get_weather", "description": "The weather in a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                   "required": ["city"]}}}
ASK = [{"role": "user", "content": "What is the weather in Paris?"}]
XML_CALL = ('<tool name="get_weather"><arguments><arg name="city">Paris "Ville"</arg>'
            '</arguments></tool>')


def xml_model(body: dict) -> Reply:
    """Writes an XML call when taught XML and not yet given a result; answers after."""
    if body["messages"][-1]["role"] == "tool" or "sunny" in last_user_text(body):
        return Reply("It is sunny in Paris.")
    if '<tool name="' in system_text(body):
        return Reply(f"Let me look that up.\n{XML_CALL}\nDone.")
    return Reply("I cannot call tools.")


def client(proxy: ProxyServer, **options) -> openai.OpenAI:
    return openai.OpenAI(base_url=proxy.url, api_key=options.pop("api_key", "unused"),
                         max_retries=0, **options)


@pytest.fixture
def served():
    """An upstream model and the proxy in front of it (XML), both on 127.0.0.1."""
    with ChatServer(xml_model) as upstream, \
            ProxyServer(ProxySettings(upstream.base_url, tool_format="xml")) as proxy:
        yield upstream, proxy


def test_a_streamed_call_arrives_as_tool_call_deltas_the_sdk_assembles(served):
    upstream, proxy = served
    stream = client(proxy).chat.completions.create(model="m", messages=ASK, tools=[WEATHER],
                                                    stream=True)
    chunks = list(stream)
    deltas = [c.choices[0].delta for c in chunks if c.choices]
    calls = [d.tool_calls for d in deltas if d.tool_calls]
    assert len(calls) == 1 and len(calls[0]) == 1  # the call whole, in one delta
    call = calls[0][0]
    assert call.id.startswith("call_") and call.function.name == "get_weather"
    assert json.loads(call.function.arguments) == {"city": 'Paris "Ville"'}
    text = "".join(d.content or "" for d in deltas)
    assert text.startswith("Let me look that up.") and "<tool" not in text
    position = {id(d): i for i, d in enumerate(deltas)}
    done = next(d for d in deltas if d.content and "Done" in d.content)
    called = next(d for d in deltas if d.tool_calls)
    assert position[id(called)] < position[id(done)]  # sent as soon as its markup closed
    assert chunks[-1].choices[0].finish_reason == "tool_calls"
    assert "tools" not in upstream.requests[0]  # taught in the text
    assert '<tool name="get_weather">' in system_text(upstream.requests[0])
    with client(proxy).chat.completions.stream(model="m", messages=ASK,
                                               tools=[WEATHER]) as helper:
        final = helper.get_final_completion()
    [assembled] = final.choices[0].message.tool_calls
    assert (assembled.function.name, json.loads(assembled.function.arguments)) == \
        ("get_weather", {"city": 'Paris "Ville"'})


def test_a_whole_answer_and_the_history_written_back_in_the_format(served):
    upstream, proxy = served
    sdk = client(proxy)
    first = sdk.chat.completions.create(model="m", messages=ASK, tools=[WEATHER])
    choice = first.choices[0]
    assert choice.finish_reason == "tool_calls"
    [call] = choice.message.tool_calls
    assert json.loads(call.function.arguments) == {"city": 'Paris "Ville"'}
    history = [*ASK, choice.message.model_dump(exclude_none=True),
               {"role": "tool", "tool_call_id": call.id, "content": "sunny, 18 degrees"}]
    second = sdk.chat.completions.create(model="m", messages=history, tools=[WEATHER])
    assert second.choices[0].message.content == "It is sunny in Paris."
    assert second.choices[0].finish_reason == "stop"
    sent = upstream.requests[-1]["messages"]
    assert sent[-2]["role"] == "assistant" and '<tool name="get_weather">' in sent[-2]["content"]
    assert sent[-1]["role"] == "user" and "sunny, 18 degrees" in sent[-1]["content"]
    assert all(m["role"] != "tool" for m in sent)


def test_a_request_without_tools_passes_through_untouched():
    recorded = REALWIRE / "openai_text_usage.sse"
    if not recorded.exists():
        pytest.skip(f"no recorded traffic at {recorded}")
    body = recorded.read_bytes()
    with ReplayServer([Recorded(body)]) as upstream, \
            ProxyServer(ProxySettings(upstream.base_url, tool_format="xml")) as proxy:
        raw = json.dumps({"model": "gpt-4o-mini", "stream": True, "messages": ASK,
                          "temperature": 0.3, "seed": 7})
        answer = httpx2.post(f"{proxy.url}/chat/completions", content=raw,
                             headers={"Content-Type": "application/json"})
    assert answer.status_code == 200 and answer.content == body  # byte for byte
    assert upstream.requests == [json.loads(raw)]


def test_upstream_errors_keep_their_status():
    def failing(body: dict) -> Reply:
        return Reply(status=503, error="the model is loading")

    with ChatServer(failing) as upstream, \
            ProxyServer(ProxySettings(upstream.base_url, tool_format="xml")) as proxy:
        sdk = client(proxy)
        for tools in ([WEATHER], openai.omit):
            for stream in (False, True):
                with pytest.raises(openai.APIStatusError) as failed:
                    sdk.chat.completions.create(model="m", messages=ASK, tools=tools,
                                                stream=stream)
                assert failed.value.status_code == 503
                assert "the model is loading" in str(failed.value)


def test_the_token_and_the_body_limit():
    with ChatServer(xml_model) as upstream, ProxyServer(ProxySettings(
            upstream.base_url, tool_format="xml", token="s3cret",
            max_body_bytes=2000)) as proxy:
        with pytest.raises(openai.AuthenticationError):
            client(proxy).chat.completions.create(model="m", messages=ASK)
        with pytest.raises(openai.AuthenticationError):
            client(proxy, api_key="wrong").models.list()
        sdk = client(proxy, api_key="s3cret")
        assert [m.id for m in sdk.models.list()] == ["m"]
        assert sdk.chat.completions.create(model="m", messages=ASK).choices[0].message.content
        with pytest.raises(openai.APIStatusError) as failed:
            sdk.chat.completions.create(model="m", messages=[
                {"role": "user", "content": "x" * 5000}])
        assert failed.value.status_code == 413
    assert len(upstream.requests) == 1  # neither refused request reached it


def test_over_the_concurrency_limit_is_429():
    arrived, release = threading.Event(), threading.Event()

    def slow(body: dict) -> Reply:
        arrived.set()
        release.wait(20)
        return xml_model(body)

    with ChatServer(slow) as upstream, ProxyServer(ProxySettings(
            upstream.base_url, tool_format="xml", max_concurrency=1)) as proxy:
        sdk = client(proxy, timeout=30)
        results: list = []
        first = threading.Thread(target=lambda: results.append(
            sdk.chat.completions.create(model="m", messages=ASK, tools=[WEATHER])))
        first.start()
        try:
            assert arrived.wait(20)
            with pytest.raises(openai.RateLimitError, match="--max-concurrency"):
                sdk.chat.completions.create(model="m", messages=ASK, tools=[WEATHER])
        finally:
            release.set()
            first.join()
        assert results[0].choices[0].finish_reason == "tool_calls"


def test_a_malformed_call_is_an_error_or_a_reask():
    def cut_once(body: dict) -> Reply:
        if "could not be read" in last_user_text(body):
            return Reply(XML_CALL)
        return Reply('<tool name="get_weather"><arguments><arg name="city">Par')

    with ChatServer(cut_once) as upstream:
        with ProxyServer(ProxySettings(upstream.base_url, tool_format="xml")) as proxy:
            with pytest.raises(openai.APIStatusError) as failed:
                client(proxy).chat.completions.create(model="m", messages=ASK,
                                                      tools=[WEATHER])
            assert failed.value.status_code == 502
            assert "'get_weather' could not be read in the xml format" in str(failed.value)
        with ProxyServer(ProxySettings(upstream.base_url, tool_format="xml",
                                       reask=True)) as proxy:
            answer = client(proxy).chat.completions.create(model="m", messages=ASK,
                                                           tools=[WEATHER])
    [call] = answer.choices[0].message.tool_calls
    assert json.loads(call.function.arguments) == {"city": 'Paris "Ville"'}


def test_a_bad_request_is_400_saying_where(served):
    _, proxy = served
    with pytest.raises(openai.BadRequestError, match=r"messages\[0\]: unknown role 'robot'"):
        client(proxy).chat.completions.create(model="m", tools=[WEATHER], messages=[
            {"role": "robot", "content": "hi"}])


def test_auto_learns_on_a_server_without_native_tools_and_remembers():
    def no_native(body: dict) -> Reply:
        if "tools" in body:
            return Reply(status=400, error="this model does not support tools")
        return xml_model(body)

    with ChatServer(no_native) as upstream, ProxyServer(ProxySettings(
            upstream.base_url, tool_format="auto", provider="llamacpp")) as proxy:
        sdk = client(proxy)
        for _ in range(2):
            answer = sdk.chat.completions.create(model="m", messages=ASK, tools=[WEATHER])
            assert answer.choices[0].message.tool_calls[0].function.name == "get_weather"
    assert ["tools" in body for body in upstream.requests] == [True, False, False]
    known = ModelFormats.cached().known(ModelKey("llamacpp", upstream.base_url, "m"))
    assert known is not None and known.learned == "xml"


def test_a_compact_manifest_shows_one_exchange_before_the_conversation():
    with ChatServer(xml_model) as upstream, ProxyServer(ProxySettings(
            upstream.base_url, tool_format="xml", manifest="compact")) as proxy:
        client(proxy).chat.completions.create(model="m", messages=ASK, tools=[WEATHER])
    assert "tools" not in upstream.requests[0]
    shown, called, asked = upstream.requests[0]["messages"][1:4]
    assert (shown["role"], shown["content"]) == ("user", "Use the tool get_weather.")
    assert called["role"] == "assistant" and '<tool name="get_weather">' in called["content"]
    assert asked == ASK[0]


@pytest.mark.parametrize("verdict", ["native", "xml"])
def test_auto_starts_from_the_stored_eval_verdict(verdict):
    def both(body: dict) -> Reply:  # calls natively when given tools, in XML when taught
        if "tools" in body and body["messages"][-1]["role"] != "tool":
            return Reply(calls=[("get_weather", {"city": "Paris"})])
        return xml_model(body)

    with ChatServer(both) as upstream:
        ModelFormats.cached().judge(ModelKey("llamacpp", upstream.base_url, "m"), verdict, {})
        with ProxyServer(ProxySettings(upstream.base_url, tool_format="auto",
                                       provider="llamacpp")) as proxy:
            answer = client(proxy).chat.completions.create(model="m", messages=ASK,
                                                           tools=[WEATHER])
    [call] = answer.choices[0].message.tool_calls
    assert (call.function.name, json.loads(call.function.arguments)["city"][:5]) == (
        "get_weather", "Paris")
    assert ["tools" in body for body in upstream.requests] == [verdict == "native"]

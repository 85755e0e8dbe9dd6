"""eval-formats on a model behind a real HTTP server whose answers depend on the format it is
taught in: the figures per format, server errors apart, the verdict stored where
tool_format: auto starts from it (no native request after), the table, --json and --plot, and
an interrupt that keeps the table so far."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from autobyteus_like import Agent, AgentConfig
from autobyteus_like.cli import main
from autobyteus_like.evals import FormatEval, load_suite, store_verdict
from autobyteus_like.evals._builtin_tools import get_weather
from autobyteus_like.events import LLMAdapted
from autobyteus_like.llm._openai import OpenAILLM
from autobyteus_like.store._model_formats import ModelFormats, ModelKey
from tests.chat_server import ChatServer, Reply, last_user_text, system_text

XML_WEATHER = '<tool name="get_weather"><arguments><arg name="city">Paris</arg></arguments></tool>'


def xml_only_model(body: dict) -> Reply:
    """A model that calls tools well in XML, answers natively in prose, and writes a JSON
    call cut short; the ``openai`` format's requests fail on the server."""
    messages = body["messages"]
    if body["model"] == "m-openai":
        return Reply(status=500, error="the server fell over")
    answered = messages[-1]["role"] == "tool" or ("get_weather" in last_user_text(body) and \
        "sunny" in last_user_text(body))
    if "capital" in last_user_text(body):
        return Reply("Paris.")
    if answered:
        return Reply("It is 18 degrees in Paris.")
    if '<tool name="' in system_text(body):
        return Reply(f"Let me look.\n{XML_WEATHER}")
    if "tools" in body:
        return Reply("It is probably sunny and warm.")
    return Reply('{"name": "get_weather", "arguments": {"city": "Paris"')


def factory(server: ChatServer, per_format: bool = True):
    def make(tool_format, task):
        model = f"m-{tool_format}" if per_format else "m"
        return OpenAILLM(model, base_url=server.base_url, api_key="k", max_retries=0,
                         temperature=0)
    return make


def test_figures_per_format_with_server_errors_apart():
    suite = load_suite().only(["one_call", "no_tool"])
    with ChatServer(xml_only_model) as server:
        report = FormatEval(factory(server), suite, model="m", formats=["native", "xml",
                            "json", "openai"], repeat=2, concurrency=2).run()
    scores = {s.format: s for s in report.scores()}
    assert len(report.outcomes) == report.total == 16
    assert (scores["xml"].successes, scores["xml"].runs) == (4, 4)
    assert scores["native"].prose_only == 2 and scores["native"].missed == 2
    assert scores["native"].successes == 2  # the question without a tool
    assert scores["json"].successes == 2 and scores["json"].missed == 2
    assert scores["openai"].server_errors == 4 and scores["openai"].runs == 0
    assert scores["openai"].success is None  # never counted as the model's failure
    assert scores["xml"].manifest_tokens > scores["native"].manifest_tokens > 0
    assert scores["xml"].reply_tokens == pytest.approx(7.5)  # (5 + 10) per run, two replies
    assert report.verdict().format == "xml"


def faulty_model(body: dict) -> Reply:
    """One fault per model: an extra call (m-xml), invalid arguments (m-native), a call cut
    off by the end of the reply (m-cut); each answers once it has seen a result."""
    if any(message["role"] == "assistant" for message in body["messages"]):
        return Reply("It is 18 degrees in Paris.")
    call = '<tool name="get_weather"><arguments><arg name="city">{}</arg></arguments>'
    if body["model"] == "m-xml":
        return Reply(call.format("Paris") + "</tool>" + call.format("London") + "</tool>")
    if body["model"] == "m-native":
        return Reply(calls=[("get_weather", {"town": "Paris"})])
    return Reply(call.format("Paris"))  # m-cut: the reply ends inside the call


def test_extra_invalid_and_malformed_calls_are_counted_once_each():
    suite = load_suite().only(["one_call"])
    with ChatServer(faulty_model) as server:
        report = FormatEval(factory(server), suite, model="m", formats=["xml", "native"],
                            repeat=2).run()
        cut = FormatEval(lambda tool_format, task: factory(server)("cut", task), suite,
                         model="m", formats=["xml"]).run()
    scores = {s.format: s for s in report.scores()}
    assert (scores["xml"].extra, scores["xml"].missed, scores["xml"].successes) == (2, 0, 0)
    assert (scores["native"].invalid_args, scores["native"].missed) == (2, 2)
    assert scores["native"].malformed == scores["xml"].malformed == 0
    [cut_score] = cut.scores()
    assert (cut_score.malformed, cut_score.missed, cut_score.prose_only) == (1, 1, 0)
    assert len(scores["xml"].latency_per_repeat) == 2 and scores["xml"].latency_spread_s >= 0
    assert "latency_spread_s" in report.as_json()["scores"][0]


def test_the_verdict_is_stored_and_auto_starts_from_it():
    suite = load_suite().only(["one_call", "no_tool"])
    with ChatServer(xml_only_model) as server:
        make = factory(server, per_format=False)
        report = FormatEval(make, suite, model="m", formats=["native", "xml"]).run()
        table = ModelFormats.cached()
        store_verdict(report, make, suite, table)
        known = table.known(ModelKey("openai", server.base_url, "m"))
        assert known is not None and known.verdict == "xml" and report.stored == table.where
        assert known.figures["xml"]["successes"] == 2
        before = len(server.requests)
        agent = Agent(AgentConfig(name="a", llm=make("auto", None), tools=[get_weather],
                                  tool_format="auto"))
        with agent:
            events = agent.events()
            answer = agent.run("What is the weather in Paris right now?", timeout=20)
            agent.stop()
            seen = list(iter(lambda: events.get(timeout=1), None))
    assert answer == "It is 18 degrees in Paris."
    assert all("tools" not in body for body in server.requests[before:])  # no negotiation
    [adapted] = [e for e in seen if isinstance(e, LLMAdapted)]
    assert adapted.now == "xml" and "eval-formats verdict" in adapted.reason


def test_stop_keeps_what_finished():
    suite = load_suite().only(["one_call", "no_tool"])
    with ChatServer(xml_only_model) as server:
        evaluation = FormatEval(factory(server), suite, model="m", formats=["xml", "native"],
                                repeat=3)
        evaluation.on_outcome = lambda outcome, report: evaluation.stop()
        report = evaluation.run()
    assert report.interrupted and len(report.outcomes) == 1 < report.total
    assert report.as_json()["runs_done"] == 1
    store_verdict(report, factory(server), suite, ModelFormats.cached())
    assert report.stored is None and report.not_stored == "the eval was interrupted"


def test_the_command_prints_the_table_and_writes_json_and_png(tmp_path, capsys):
    with ChatServer(xml_only_model) as server:
        spec = f"{{provider: llamacpp, model: m, base_url: '{server.base_url}', max_retries: 0}}"
        code = main(["eval-formats", "--llm", spec, "--formats", "native,xml",
                     "--tasks", "one_call,no_tool", "--json", str(tmp_path / "e.json"),
                     "--plot", str(tmp_path / "e.png")])
    out = capsys.readouterr().out
    assert code == 0
    assert "eval-formats: llamacpp m" in out and "(4 of 4 runs)" in out
    assert "verdict: xml (stored in" in out
    data = json.loads((tmp_path / "e.json").read_text())
    assert data["verdict"] == "xml" and [s["format"] for s in data["scores"]] == ["native", "xml"]
    assert len(data["outcomes"]) == 4
    assert (tmp_path / "e.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_command_takes_a_members_model_from_a_team_file(tmp_path, capsys):
    with ChatServer(xml_only_model) as server:
        team = tmp_path / "t.yaml"
        team.write_text("name: t\ncoordinator: a\nmembers:\n  - name: a\n    llm: {provider: "
                        f"llamacpp, model: m, base_url: '{server.base_url}', max_retries: 0}}\n")
        code = main(["eval-formats", "--llm", f"{team}:a", "--formats", "xml",
                     "--tasks", "one_call", "--no-store"])
        asked = [body["model"] for body in server.requests]
    out = capsys.readouterr().out
    assert code == 0, out
    assert "eval-formats: llamacpp m" in out and "1/1 (100%)" in out
    assert asked and set(asked) == {"m"}


def test_the_commands_mistakes_are_one_line(tmp_path, capsys):
    assert main(["eval-formats", "--llm", "{provider: nope}"]) == 2
    assert "--llm '{provider: nope}': provider:" in capsys.readouterr().err
    team = tmp_path / "t.yaml"
    team.write_text("name: t\ncoordinator: a\nmembers:\n  - {name: a, llm: {provider: scripted}}\n")
    assert main(["eval-formats", "--llm", f"{team}:b"]) == 2
    assert "has no member 'b' (members: a)" in capsys.readouterr().err
    assert main(["eval-formats", "--llm", f"{team}:a", "--formats", "yaml"]) == 2
    assert "--formats:" in capsys.readouterr().err


@pytest.mark.slow  # a fresh interpreter and two runs: seconds
def test_ctrl_c_prints_the_table_so_far(tmp_path):
    second = threading.Event()
    release = threading.Event()

    def slow_second(body: dict) -> Reply:
        if "capital" in last_user_text(body):
            second.set()
            release.wait(20)  # the interrupt comes while this request waits
        return xml_only_model(body)

    with ChatServer(slow_second) as server:
        spec = f"{{provider: llamacpp, model: m, base_url: '{server.base_url}', max_retries: 0}}"
        env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])}
        process = subprocess.Popen(
            [sys.executable, "-m", "autobyteus_like.cli", "eval-formats", "--llm", spec,
             "--formats", "xml", "--tasks", "one_call,no_tool"], env=env,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            assert second.wait(60), "the second run never reached the server"
            process.send_signal(signal.SIGINT)
            out, err = process.communicate(timeout=60)
        finally:
            release.set()
            if process.poll() is None:
                process.kill()
                process.wait()
    assert process.returncode == 130, err
    assert "(1 of 2 runs, interrupted)" in out
    assert "verdict: xml (not stored: the eval was interrupted)" in out


def test_a_missing_plot_extra_is_one_line_before_anything_runs(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # as where the extra is not installed
    assert main(["eval-formats", "--llm", "{provider: scripted, responses: []}",
                 "--plot", "x.png"]) == 2
    [line] = capsys.readouterr().err.splitlines()
    assert line == ("error: --plot needs the matplotlib package: "
                    "pip install 'autobyteus-like[plot]'")

"""The first hour on the command line: validate needs no key, every failure is one line, stop
means stop, and the live view shows model text as text."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import yaml

from autobyteus_like import __version__
from autobyteus_like.cli._main import main
from tests.llm.replay_server import Failure, Hang, ReplayServer, Stream, fixture

ROOT = Path(__file__).parent.parent
KEYS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY")


def write_team(tmp_path: Path, llm: dict, **member: object) -> Path:
    team = {"name": "t", "coordinator": "lead",
            "members": [{"name": "lead", "llm": llm, **member}]}
    path = tmp_path / "team.yaml"
    path.write_text(yaml.safe_dump(team))
    return path


@pytest.fixture
def no_keys(monkeypatch):
    for key in KEYS:
        monkeypatch.delenv(key, raising=False)


def test_version(capsys):
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out.strip() == f"autobyteus-like {__version__}"


@pytest.mark.parametrize("llm", [
    {"provider": "openai", "model": "gpt-4o-mini"},
    {"provider": "anthropic", "model": "claude-sonnet-5"},
    {"provider": "gemini", "model": "gemini-2.5-flash"},
])
def test_validate_needs_no_key_extra_or_network(llm, tmp_path, capsys, no_keys, monkeypatch):
    for sdk in ("openai", "anthropic", "google.genai"):
        monkeypatch.setitem(sys.modules, sdk, None)  # the extras are not installed either
    assert main(["validate", str(write_team(tmp_path, llm))]) == 0
    assert "valid team 't'" in capsys.readouterr().out


def test_a_missing_key_is_one_line_naming_the_member_and_the_variable(tmp_path, capsys,
                                                                      no_keys):
    team = write_team(tmp_path, {"provider": "openai", "model": "gpt-4o-mini"})
    assert main(["run", str(team), "--message", "hi"]) == 2
    [line] = capsys.readouterr().err.splitlines()
    assert line == ("error: team 't': member 'lead': the openai provider needs an API key: set "
                    "the OPENAI_API_KEY environment variable (or api_key_env / api_key)")


def test_a_missing_key_and_extra_are_said_together(tmp_path, capsys, no_keys, monkeypatch):
    monkeypatch.setitem(sys.modules, "anthropic", None)
    team = write_team(tmp_path, {"provider": "anthropic", "model": "claude-sonnet-5"})
    assert main(["run", str(team), "--message", "hi"]) == 2
    [line] = capsys.readouterr().err.splitlines()
    assert "needs an API key: set the ANTHROPIC_API_KEY environment variable" in line
    assert "and the anthropic package: pip install 'autobyteus-like[anthropic]'" in line


def test_unknown_tools_without_tools_hint_at_the_flag(capsys):
    assert main(["validate", str(ROOT / "examples" / "research_team.yaml")]) == 2
    err = capsys.readouterr().err.splitlines()
    assert "unknown tool 'write_file'" in err[0]
    assert err[-1] == ("hint: the config names tools of your own; pass --tools FILE.py:NAME "
                       "(or module:NAME) that provides them")


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_connection_refused_is_one_line_with_the_url(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    url = f"http://127.0.0.1:{closed_port()}/v1"
    team = write_team(tmp_path, {"provider": "openai", "model": "m", "base_url": url,
                                 "max_retries": 0})
    assert main(["run", str(team), "--message", "hi", "--json"]) == 1
    [line] = capsys.readouterr().err.splitlines()
    assert line.startswith("error: the run failed: ") and "connection refused" in line
    assert url in line


def test_a_provider_error_is_one_line_with_status_and_message(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    broken = Failure(500, {"error": {"message": "The server had an error"}})
    with ReplayServer([broken]) as server:
        team = write_team(tmp_path, {"provider": "openai", "model": "m",
                                     "base_url": server.base_url, "max_retries": 0})
        assert main(["run", str(team), "--message", "hi", "--json"]) == 1
    [line] = capsys.readouterr().err.splitlines()
    assert "HTTP 500" in line and "The server had an error" in line


def cli(team: Path, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "OPENAI_API_KEY": "sk-test"}
    return subprocess.Popen(
        [sys.executable, "-m", "autobyteus_like.cli", "run", str(team), "--message", "hi",
         "--json", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        cwd=ROOT)


# A provider that never answers, with a 60 s request timeout: a run that waits for it (or for
# its retries) lives a minute or more. The bounds below leave a loaded machine ten times the
# quiet second a stop takes, well short of that minute.
PROVIDER_TIMEOUT_S = 60


def test_timeout_ends_the_run_promptly_against_a_server_that_never_answers(tmp_path, capsys,
                                                                           monkeypatch):
    """In this process, whose imports are warm: a new interpreter's start-up (seconds on a
    loaded machine) once used up the whole --timeout before the request was even sent, so the
    run ended without ever waiting on the silent server. A thread left waiting on it would
    fail the suite's thread check."""
    import openai  # noqa: F401  (imported before the clock starts, as in a warm process)

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with ReplayServer([Hang(), Hang(), Hang(), Hang()]) as server:
        team = write_team(tmp_path, {"provider": "openai", "model": "m",
                                     "base_url": server.base_url,
                                     "timeout_s": PROVIDER_TIMEOUT_S, "max_retries": 3})
        started = time.perf_counter()
        code = main(["run", str(team), "--message", "hi", "--json", "--timeout", "3"])
        took = time.perf_counter() - started
        assert server.arrived.acquire(timeout=0), "the request was never sent"
    err = capsys.readouterr().err
    assert code == 1, err
    assert "the team was still busy after 3 s" in err
    # the 3 s deadline and the stop; not timeout_s x retries
    assert took < 3 + 20, f"the run took {took:.1f} s"


def test_one_ctrl_c_ends_a_run(tmp_path):
    with ReplayServer([Hang(), Hang()]) as server:
        team = write_team(tmp_path, {"provider": "openai", "model": "m",
                                     "base_url": server.base_url,
                                     "timeout_s": PROVIDER_TIMEOUT_S})
        process = cli(team)
        assert server.arrived.acquire(timeout=60)  # the request is waiting for its answer
        process.send_signal(signal.SIGINT)
        started = time.perf_counter()
        _out, err = process.communicate(timeout=PROVIDER_TIMEOUT_S * 2)
        took = time.perf_counter() - started
    assert process.returncode == 130, err
    assert err.strip().splitlines()[-1] == "interrupted"
    assert "Traceback" not in err
    assert took < 20, f"one Ctrl-C took {took:.1f} s to end the run"


def test_a_ctrl_c_taken_by_a_worker_thread_ends_the_run(tmp_path, capsys, monkeypatch):
    """The kernel gives a process-directed SIGINT to any thread that does not block it; when a
    worker waiting on its provider takes it, CPython only flags it for the main thread, which
    once slept through it in its wait for the next event until the run's deadline (as seen on
    a loaded machine: one Ctrl-C, no exit, nothing printed). Here the worker is handed the
    signal directly."""
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with ReplayServer([Hang(), Hang()]) as server:
        team = write_team(tmp_path, {"provider": "openai", "model": "m",
                                     "base_url": server.base_url,
                                     "timeout_s": PROVIDER_TIMEOUT_S, "max_retries": 0})
        sent: list[float] = []

        def interrupt_the_llm_worker() -> None:
            if not server.arrived.acquire(timeout=60):  # the request is waiting for its answer
                return
            worker = next(thread for thread in threading.enumerate()
                          if thread.name.startswith("lead-llm"))
            assert worker.ident is not None
            sent.append(time.perf_counter())
            signal.pthread_kill(worker.ident, signal.SIGINT)

        interrupter = threading.Thread(target=interrupt_the_llm_worker)
        interrupter.start()
        try:
            code = main(["run", str(team), "--message", "hi", "--json", "--timeout", "40"])
        finally:
            interrupter.join()
        ended = time.perf_counter()
    err = capsys.readouterr().err
    assert sent, "the LLM request never arrived"
    assert code == 130, err
    assert err.strip().splitlines()[-1] == "interrupted"
    assert ended - sent[0] < 20, f"the Ctrl-C took {ended - sent[0]:.1f} s to end the run"


MARKUP = "Use [/b] and [red]x[/red] and [bold]"


def test_the_live_view_prints_model_text_as_text_prose_before_calls(tmp_path, capsys):
    call = json.dumps({"name": "send_message_to",
                       "arguments": {"recipient_name": "helper", "content": "[/b] go"}})
    team = {"name": "t", "coordinator": "lead", "members": [
        {"name": "lead", "tool_format": "json", "tools": ["send_message_to"],
         "llm": {"provider": "scripted", "responses": [f"Asking [b]helper[/b].\n{call}",
                                                       MARKUP]}},
        {"name": "helper", "llm": {"provider": "scripted", "responses": ["[/i] fine"]}},
    ]}
    path = tmp_path / "team.yaml"
    path.write_text(yaml.safe_dump(team))
    assert main(["run", str(path), "--message", "hi"]) == 0
    out = capsys.readouterr().out
    assert f"answer: {MARKUP}" in out
    lines = out.splitlines()
    says = next(i for i, line in enumerate(lines) if "says: Asking [b]helper[/b]." in line)
    calls = next(i for i, line in enumerate(lines) if "calls send_message_to(" in line)
    assert says < calls
    assert "[/i] fine" in out


def test_the_summary_shows_token_totals_and_verbose_shows_whole_arguments(tmp_path, capsys,
                                                                           monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    chunks = fixture("openai/text")
    usage = next(chunk["usage"] for chunk in chunks if chunk.get("usage"))
    with ReplayServer([Stream(chunks)]) as server:
        team = write_team(tmp_path, {"provider": "openai", "model": "m",
                                     "base_url": server.base_url})
        assert main(["run", str(team), "--message", "hi", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert summary["agents"]["lead"]["input_tokens"] == usage["prompt_tokens"]
    assert summary["agents"]["lead"]["output_tokens"] == usage["completion_tokens"]
    long_text = "word " * 60
    call = json.dumps({"name": "send_message_to",
                       "arguments": {"recipient_name": "helper", "content": long_text}})
    team_file = tmp_path / "verbose.yaml"
    team_file.write_text(yaml.safe_dump({"name": "t", "coordinator": "lead", "members": [
        {"name": "lead", "tool_format": "json", "tools": ["send_message_to"],
         "llm": {"provider": "scripted", "responses": [call, "done"]}},
        {"name": "helper", "llm": {"provider": "scripted", "responses": ["ok"]}}]}))
    assert main(["run", str(team_file), "--message", "hi", "--verbose"]) == 0
    assert long_text.strip() in capsys.readouterr().out.replace("\n", " ").replace("  ", " ")


MCP_TEAM = {"name": "t", "coordinator": "lead", "mcp_servers": {"fs": {"command": "npx"}},
            "members": [{"name": "lead", "tools": ["fs.*"],
                         "llm": {"provider": "scripted", "responses": ["hi"]}}]}
RAY_TEAM = {"name": "t", "coordinator": "lead", "runtime": {"backend": "ray"},
            "members": [{"name": "lead", "llm": {"provider": "scripted", "responses": ["hi"]}}]}


@pytest.mark.parametrize(("team", "extra"), [(MCP_TEAM, "mcp"), (RAY_TEAM, "ray")])
@pytest.mark.parametrize("command", ["validate", "run"])
def test_a_missing_extra_is_one_line_naming_it(team, extra, command, tmp_path, capsys,
                                              monkeypatch):
    for package in ("mcp", "jsonschema", "ray"):
        monkeypatch.setitem(sys.modules, package, None)  # the base install
    path = tmp_path / "team.yaml"
    path.write_text(yaml.safe_dump(team))
    args = [command, str(path)] + (["-m", "hi"] if command == "run" else [])
    assert main(args) == 2
    [line] = capsys.readouterr().err.splitlines()
    assert line.startswith("error: ") and line.endswith(f"pip install 'autobyteus-like[{extra}]'")


def test_the_mcp_example_without_its_extra_is_one_line(tmp_path):
    script = ("import runpy, sys\nfor name in ('mcp', 'jsonschema'):\n"
              "    sys.modules[name] = None\n"
              f"runpy.run_path({str(ROOT / 'examples' / 'mcp_agent.py')!r}, run_name='__main__')\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 2
    assert done.stderr.strip() == ("error: mcp server 'notes' needs the mcp package: "
                                   "pip install 'autobyteus-like[mcp]'")


def test_validate_warns_that_a_member_s_provider_sdk_is_missing(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "openai", None)
    assert main(["validate", str(ROOT / "examples" / "ollama_team.yaml"), "--tools",
                 f"{ROOT / 'examples' / 'example_tools.py'}:make_tools"]) == 0
    captured = capsys.readouterr()
    assert "valid team 'ollama_team'" in captured.out
    assert ("warning: member 'lead': the ollama provider needs the openai package to run: "
            "pip install 'autobyteus-like[openai]'") in captured.err.splitlines()

"""The ``proxy`` command: it prints where it listens (127.0.0.1 by default), serves the SDK
there, and stops on a signal with exit 0; its mistakes are one line."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import openai
import pytest

from autobyteus_like.cli import main
from tests.chat_server import ChatServer, Reply, system_text

ROOT = Path(__file__).resolve().parents[2]


def test_the_commands_mistakes_are_one_line(capsys, monkeypatch):
    monkeypatch.delenv("NO_SUCH_PROXY_TOKEN", raising=False)
    assert main(["proxy", "--upstream", "http://127.0.0.1:9/v1", "--format", "yaml"]) == 2
    assert "--format:" in capsys.readouterr().err
    assert main(["proxy", "--upstream", "127.0.0.1:9"]) == 2
    assert "expected an http(s) URL" in capsys.readouterr().err
    assert main(["proxy", "--upstream", "http://127.0.0.1:9/v1",
                 "--token-env", "NO_SUCH_PROXY_TOKEN"]) == 2
    assert "--token-env NO_SUCH_PROXY_TOKEN: the variable is not set" in \
        capsys.readouterr().err


@pytest.mark.slow  # a fresh interpreter: seconds
def test_the_command_serves_until_a_signal():
    def model(body: dict) -> Reply:
        if '<tool name="' in system_text(body):
            return Reply('<tool name="get_weather"><arguments><arg name="city">Oslo</arg>'
                         '</arguments></tool>')
        return Reply("hi")

    with ChatServer(model) as upstream:
        process = subprocess.Popen(
            [sys.executable, "-m", "autobyteus_like.cli", "proxy", "--upstream",
             upstream.base_url, "--port", "0", "--format", "xml"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)})
        try:
            assert process.stdout is not None
            line = process.stdout.readline()
            assert line.startswith(f"proxy for {upstream.base_url} (tools in the xml format) "
                                   "at http://127.0.0.1:"), line
            url = line.split(" at ")[-1].strip()
            sdk = openai.OpenAI(base_url=url, api_key="unused", max_retries=0)
            answer = sdk.chat.completions.create(model="m", messages=[
                {"role": "user", "content": "Weather in Oslo?"}], tools=[{
                    "type": "function", "function": {"name": "get_weather", "parameters": {
                        "type": "object", "properties": {"city": {"type": "string"}}}}}])
            sdk.close()
            [call] = answer.choices[0].message.tool_calls
            assert json.loads(call.function.arguments) == {"city": "Oslo"}
            process.send_signal(signal.SIGINT)
            assert process.wait(30) == 0, process.stderr.read() if process.stderr else ""
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
            for stream in (process.stdout, process.stderr):
                if stream is not None:
                    stream.close()

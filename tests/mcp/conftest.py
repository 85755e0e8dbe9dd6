"""Fixtures for the MCP tests: the reference servers from npm, installed once per run.

``AUTOBYTEUS_MCP_NPM_DIR`` names a folder where they are (or are to be) installed, so CI can
install them beforehand (see docs/mcp.md); otherwise they are installed under pytest's temporary
directory. Without a way to reach the npm registry the tests that need them are skipped, saying
so; any other failure of npm fails them.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

PACKAGES = ("@modelcontextprotocol/server-everything@2026.8.31",
            "@modelcontextprotocol/server-filesystem@2026.8.31")
_OFFLINE = ("ENOTFOUND", "EAI_AGAIN", "ECONNREFUSED", "ETIMEDOUT", "ECONNRESET", "ENETUNREACH",
            "network")


@dataclass(frozen=True)
class NpmServers:
    """Entry points of the reference servers, to run with ``node``."""

    everything: str
    filesystem: str


def _entry(folder: Path, package: str) -> Path:
    return folder / "node_modules" / "@modelcontextprotocol" / package / "dist" / "index.js"


@pytest.fixture(scope="session")
def npm_servers(tmp_path_factory: pytest.TempPathFactory) -> NpmServers:
    given = os.environ.get("AUTOBYTEUS_MCP_NPM_DIR")
    folder = Path(given) if given else tmp_path_factory.mktemp("mcp-npm")
    everything = _entry(folder, "server-everything")
    filesystem = _entry(folder, "server-filesystem")
    if not (everything.is_file() and filesystem.is_file()):
        npm, node = shutil.which("npm"), shutil.which("node")
        if npm is None or node is None:
            pytest.skip("node and npm are needed for the reference MCP servers")
        folder.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(
            [npm, "install", "--prefix", str(folder), "--no-audit", "--no-fund", "--no-save",
             "--loglevel=error", *PACKAGES], capture_output=True, text=True, timeout=300)
        if done.returncode != 0:
            output = done.stdout + done.stderr
            if any(sign in output for sign in _OFFLINE):
                pytest.skip(f"npm cannot reach its registry: {output.strip()[-300:]}")
            pytest.fail(f"npm install failed:\n{output}")
    return NpmServers(str(everything), str(filesystem))

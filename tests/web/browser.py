"""A real headless browser for the page tests: Debian's chromium driven by Playwright for
Python (Playwright's own browser download cannot be reached, so it is pointed at Debian's
build). Tests skip, saying why, where either is missing."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

CHROMIUM = os.environ.get("AUTOBYTEUS_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run",
        "--disable-dev-shm-usage"]


@contextmanager
def browser_page(viewport: dict[str, int] | None = None) -> Iterator[Any]:
    """A fresh page in a fresh browser profile (closed, with its browser, afterwards)."""
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"no chromium at {CHROMIUM} (apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    profile = tempfile.mkdtemp(prefix="web-test-profile-")
    try:
        with sync_api.sync_playwright() as playwright:
            try:
                context = playwright.chromium.launch_persistent_context(
                    profile, executable_path=CHROMIUM, headless=True, args=ARGS,
                    viewport=viewport or {"width": 1280, "height": 900},
                    timeout=120_000)  # a loaded machine starts it slowly: not a reason to skip
            except Exception as exc:  # a browser that cannot start here
                pytest.skip(f"chromium could not be started: {str(exc).splitlines()[0]}")
            try:
                page = context.pages[0] if context.pages else context.new_page()
                page.set_default_timeout(30_000)
                yield page
            finally:
                context.close()
    finally:
        shutil.rmtree(profile, ignore_errors=True)

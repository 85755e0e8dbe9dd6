"""A real headless browser for the page tests: Debian's chromium driven by Playwright for
Python (Playwright's own browser download cannot be reached, so it is pointed at Debian's
build). Tests skip, saying why, where either is missing.

Starting chromium (and Playwright's driver) costs seconds on a loaded machine, so a module's
tests share one browser (``shared_browser``, a module fixture closed with its processes at the
module's end) and each test gets a page in a fresh browser context of its own: a new profile,
in memory, no cookie or storage of another test's."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

CHROMIUM = os.environ.get("AUTOBYTEUS_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run",
        "--disable-dev-shm-usage"]


@contextmanager
def launched_browser() -> Iterator[Any]:
    """A running chromium (closed, with Playwright's driver, afterwards)."""
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"no chromium at {CHROMIUM} (apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    with sync_api.sync_playwright() as playwright:
        try:
            browser = playwright.chromium.launch(
                executable_path=CHROMIUM, headless=True, args=ARGS,
                timeout=120_000)  # a loaded machine starts it slowly: not a reason to skip
        except Exception as exc:  # a browser that cannot start here
            pytest.skip(f"chromium could not be started: {str(exc).splitlines()[0]}")
        try:
            yield browser
        finally:
            browser.close()


@contextmanager
def browser_page(browser: Any, viewport: dict[str, int] | None = None) -> Iterator[Any]:
    """A fresh page in a fresh context of ``browser`` (closed, with its context, afterwards)."""
    context = browser.new_context(viewport=viewport or {"width": 1280, "height": 900})
    try:
        page = context.new_page()
        page.set_default_timeout(30_000)
        yield page
    finally:
        context.close()

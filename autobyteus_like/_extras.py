"""The optional extras and the packages each brings: a feature checks its extra before it
starts, so a missing one is one line naming the ``pip install`` (never an import traceback)."""

from __future__ import annotations

import importlib.util
import sys

from autobyteus_like.errors import MissingExtraError

__all__ = ["EXTRA_PACKAGES", "missing_package", "require_extra"]

EXTRA_PACKAGES: dict[str, tuple[str, ...]] = {
    "mcp": ("mcp", "jsonschema"),
    "ray": ("ray",),
    "openai": ("openai",),
    "anthropic": ("anthropic",),
    "gemini": ("google.genai",),
    "otel": ("opentelemetry.sdk",),
    "postgres": ("psycopg",),
    "web": ("ag_ui", "starlette", "uvicorn"),
    "a2a": ("a2a", "starlette", "uvicorn"),
    "vector": ("wordllama", "usearch"),
    "js": ("py_mini_racer",),
    "plot": ("matplotlib",),
}
"""Extra -> the importable packages it installs (as in pyproject.toml)."""


def missing_package(extra: str) -> str | None:
    """The first package of ``extra`` that cannot be imported here, or None; imports nothing."""
    for package in EXTRA_PACKAGES[extra]:
        if package in sys.modules:
            if sys.modules[package] is None:  # blocked, as a test of the base install does
                return package
            continue
        try:
            if importlib.util.find_spec(package) is None:
                return package
        except (ImportError, ValueError):  # a parent package is missing or blocked
            return package
    return None


def require_extra(extra: str, what: str) -> None:
    """Raise ``MissingExtraError`` (``{what} needs the X package: pip install ...``) unless
    every package of ``extra`` is installed."""
    package = missing_package(extra)
    if package is not None:
        raise MissingExtraError(what, package.split(".")[0] if package != "google.genai"
                                else "google-genai", extra)
